"""The project's development package: where the project is (project), dbt run in this process
on the project's profiles (dbt_harness), the project's macros rendered with plain Jinja for
sqlglot (macro_renderer), and the mutation analysis of the property tests (mutate_properties).
The tests find it through pytest.ini's pythonpath (the repository root); a script in scripts/
that uses it puts the repository root on its path. Nothing here computes a window."""
