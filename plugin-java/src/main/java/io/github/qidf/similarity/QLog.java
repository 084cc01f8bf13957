package io.github.qidf.similarity;

import java.util.Locale;

/**
 * The q-logarithmic IDF: the one place the formula lives on the Java side.
 *
 * <p>{@code ln_q(x) = (x^(1-q) - 1) / (1 - q)} is the Tsallis q-logarithm; at {@code q = 1} it is
 * {@code ln(x)}. It is computed as {@code expm1((1-q) ln x) / (1-q)}, algebraically identical and
 * free of the 0/0 cancellation of the textbook form when q is within ~1e-8 of 1. This mirrors
 * {@code qidf_ctl/qlog.py}; both are checked against {@code tests/vectors/qlog_idf.json}.
 *
 * <p>At {@code q = 1} with the {@link Form#LUCENE} form, {@link #idf} performs exactly the double
 * operations of Lucene's {@code BM25Similarity.idf}: {@code Math.log(1 + (N - n + 0.5) / (n + 0.5))}.
 */
public final class QLog {

    /** Smallest allowed q. */
    public static final double Q_MIN = 0.0;
    /** Largest allowed q. */
    public static final double Q_MAX = 2.0;

    private QLog() {}

    /** Which odds the q-logarithm is applied to. */
    public enum Form {
        /** {@code ln_q(1 + odds)}: always positive, Lucene's BM25 IDF at q = 1 (the default). */
        LUCENE,
        /**
         * {@code max(0, ln_q(odds))}: the Robertson-Sparck Jones form of the paper, floored at 0
         * because engines reject negative scores (it is negative for terms in more than N/2 docs).
         */
        RSJ;

        /** The name used in settings: {@code lucene} or {@code rsj}. */
        public String settingValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** True when q is a finite number in [{@link #Q_MIN}, {@link #Q_MAX}]. */
    public static boolean isValidQ(double q) {
        return q >= Q_MIN && q <= Q_MAX; // false for NaN
    }

    /** Tsallis q-logarithm of x; NaN when x is not positive (the formula is undefined there). */
    public static double lnQ(double x, double q) {
        if (!(x > 0.0)) {
            return Double.NaN;
        }
        final double oneMinusQ = 1.0 - q;
        final double logX = Math.log(x);
        if (oneMinusQ == 0.0) {
            return logX;
        }
        return Math.expm1(oneMinusQ * logX) / oneMinusQ;
    }

    /** {@code (N - n + 0.5) / (n + 0.5)}, the Robertson-Sparck Jones odds BM25 builds on. */
    public static double rsjOdds(long docCount, long docFreq) {
        return ((double) (docCount - docFreq) + 0.5) / ((double) docFreq + 0.5);
    }

    /** q-log IDF of a term in {@code docFreq} of {@code docCount} documents. */
    public static double idf(double q, long docCount, long docFreq, Form form) {
        final double odds = rsjOdds(docCount, docFreq);
        if (form == Form.LUCENE) {
            return lnQ(1.0 + odds, q);
        }
        // ln_q(x) <= 0 exactly when x <= 1 (for every q), so this is max(0, ln_q(odds));
        // written as a test on the odds it also gives 0 (never NaN) for odds <= 0.
        if (!(odds > 1.0)) {
            return 0.0;
        }
        return Math.max(0.0, lnQ(odds, q));
    }
}
