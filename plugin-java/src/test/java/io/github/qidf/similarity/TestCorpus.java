package io.github.qidf.similarity;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A small corpus of real-ish text for index-level tests: 40-line chunks of real source files
 * (Go's standard library when a Go toolchain is installed, plus this repository's own files).
 */
final class TestCorpus {

    static final String FIELD = "body";
    static final int MAX_DOCS = 400;
    static final int LINES_PER_DOC = 40;

    private TestCorpus() {}

    static List<String> documents() {
        List<Path> files = new ArrayList<>();
        Path go = Paths.get(System.getProperty("qidf.corpus.go", "/usr/local/go/src"));
        for (String pkg : Arrays.asList("strings", "bufio", "bytes", "sort", "fmt", "errors", "unicode/utf8", "container/list")) {
            files.addAll(list(go.resolve(pkg), ".go"));
        }
        Path repo = Paths.get("..").toAbsolutePath().normalize();
        files.addAll(list(Paths.get("src"), ".java"));
        files.addAll(list(repo.resolve("qidf_ctl"), ".py"));
        files.addAll(list(repo.resolve("scripts"), ".py"));
        files.addAll(list(repo.resolve("docs"), ".md"));
        List<String> docs = new ArrayList<>();
        for (Path f : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            } catch (IOException | UncheckedIOException e) {
                continue;
            }
            for (int i = 0; i < lines.size() && docs.size() < MAX_DOCS; i += LINES_PER_DOC) {
                String text = String.join("\n", lines.subList(i, Math.min(lines.size(), i + LINES_PER_DOC)));
                if (!text.isBlank()) {
                    docs.add(text);
                }
            }
            if (docs.size() >= MAX_DOCS) {
                break;
            }
        }
        if (docs.size() < 50) {
            throw new IllegalStateException("test corpus too small: " + docs.size() + " documents");
        }
        return docs;
    }

    private static List<Path> list(Path dir, String suffix) {
        if (!Files.isDirectory(dir)) {
            return new ArrayList<>();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix) && Files.isRegularFile(p)).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            return new ArrayList<>();
        }
    }

    /** Indexes the documents with the given similarity (it decides the norms) into memory. */
    static DirectoryReader index(List<String> docs, Similarity similarity) throws IOException {
        Directory dir = new ByteBuffersDirectory();
        Analyzer analyzer = new StandardAnalyzer();
        IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(similarity);
        try (IndexWriter writer = new IndexWriter(dir, config)) {
            int id = 0;
            for (String text : docs) {
                Document d = new Document();
                d.add(new StringField("id", Integer.toString(id++), Field.Store.YES));
                d.add(new TextField(FIELD, text, Field.Store.NO));
                writer.addDocument(d);
                if (id % 150 == 0) {
                    writer.commit(); // a few segments, like a real index
                }
            }
        }
        return DirectoryReader.open(dir);
    }
}
