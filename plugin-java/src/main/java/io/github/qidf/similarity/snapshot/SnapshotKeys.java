package io.github.qidf.similarity.snapshot;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

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

    /**
     * The snapshot keys an index's settings name: {@code index.similarity.<name>.stats_snapshot} of
     * every similarity of type {@code qlog_bm25}.
     *
     * @param settingKeys the index's flat setting keys
     * @param get a setting's value by key
     */
    public static Set<String> named(Iterable<String> settingKeys, Function<String, String> get) {
        Set<String> keys = new TreeSet<>();
        String suffix = "." + io.github.qidf.similarity.QLogSimilaritySettings.STATS_SNAPSHOT;
        for (String setting : settingKeys) {
            if (setting.startsWith("index.similarity.") && setting.endsWith(suffix)) {
                String similarity = setting.substring(0, setting.length() - suffix.length());
                String value = get.apply(setting);
                if (io.github.qidf.similarity.QLogSimilaritySettings.TYPE.equals(get.apply(similarity + ".type"))
                    && value != null && problem(value) == null) {
                    keys.add(value);
                }
            }
        }
        return keys;
    }
}
