-- User sessions whose gap depends on each click's channel (Flink's dynamic gap): a mobile click
-- keeps the session open 30 minutes, any other click 10 minutes.
select
    user_id,
    window_start,
    window_end,
    count(*) as clicks,
    count_if(channel = 'mobile') as mobile_clicks
from {{ spark_windows.session(
    ref('channel_clicks'),
    'click_ts',
    "case when channel = 'mobile' then interval 30 minutes else interval 10 minutes end",
    partition_by=['user_id']
) }}
group by user_id, window_start, window_end
