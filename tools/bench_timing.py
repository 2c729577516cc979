"""The timing helper of the Python benchmark scripts in tools/ (the C++ tools
have tools/timing.h): the median of timed runs after one warm-up run."""
import statistics
import time


def median_ms(f, repeat):
    """f's median time over `repeat` runs, in milliseconds, after one untimed run."""
    f()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)
