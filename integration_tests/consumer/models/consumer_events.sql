-- Six readings of two sensors; one without a time.
select *
from
    values
    ('s1', timestamp '2024-05-01 08:00:05', 3),
    ('s1', timestamp '2024-05-01 08:00:35', 4),
    ('s1', timestamp '2024-05-01 08:01:10', 2),
    ('s2', timestamp '2024-05-01 07:59:50', 2),
    ('s2', timestamp '2024-05-01 08:01:00', 6),
    ('s2', cast(null as timestamp), 9)
        as readings (sensor_id, reading_ts, car_count)
