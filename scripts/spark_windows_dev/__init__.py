"""The Python that the scripts and the tests share: where the project is (project), dbt run in
this process on the project's profiles (dbt_harness), and the project's macros rendered with plain
Jinja for sqlglot (macro_renderer). The scripts import it as their sibling; the tests find it
through pytest.ini's pythonpath. Nothing here computes a window."""
