package io.github.qidf.similarity.snapshot;

import java.nio.charset.StandardCharsets;

/** What a snapshot key may be: it is a setting's value, a document id and a URL path segment. */
public final class SnapshotKeys {

    public static final int MAX_BYTES = 255;

    private SnapshotKeys() {}

    /** Returns null when {@code key} is acceptable, else why not. */
    public static String problem(String key) {
        if (key == null || key.isEmpty()) {
            return "must not be empty";
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            return "must be at most " + MAX_BYTES + " bytes";
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isWhitespace(c) || "\\/*?\"<>|,#:".indexOf(c) >= 0) {
                return "must not contain spaces, control characters or any of \\ / * ? \" < > | , # :";
            }
        }
        return null;
    }
}
