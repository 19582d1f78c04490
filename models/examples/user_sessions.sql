-- User activity sessions that end after 10 minutes without a click.
select
    user_id,
    window_start,
    window_end,
    count(*) as clicks,
    count(distinct page) as pages
from {{ spark_windows.session(ref('user_clicks'), 'click_ts', '10 minutes', partition_by=['user_id']) }}
group by user_id, window_start, window_end
