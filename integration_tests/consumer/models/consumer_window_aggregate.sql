select *
from {{ spark_windows.window_aggregate(ref('consumer_events'), 'reading_ts',
    {'type': 'hop', 'slide': '30 seconds', 'size': '1 minute'},
    ['sensor_id'], {'vehicles': 'sum(car_count)'}) }}
