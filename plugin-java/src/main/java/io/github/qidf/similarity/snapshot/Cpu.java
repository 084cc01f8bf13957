package io.github.qidf.similarity.snapshot;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time of the current thread, to report a take's cost apart from the machine's load (a
 * shared machine stretches wall time, not CPU time). -1 where the JVM does not measure it.
 */
final class Cpu {

    private Cpu() {}

    static long nanos() {
        try {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1L;
        } catch (SecurityException | UnsupportedOperationException e) {
            return -1L;
        }
    }

    /** Milliseconds between two readings of {@link #nanos()} (-1 when either is unknown). */
    static long millis(long from, long to) {
        return from < 0 || to < 0 ? -1L : (to - from) / 1_000_000L;
    }
}
