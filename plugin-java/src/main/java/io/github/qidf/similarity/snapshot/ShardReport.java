package io.github.qidf.similarity.snapshot;

/** What one shard copy reports to the node taking a snapshot: its statistics and its size. */
public final class ShardReport {

    public final int shard;
    public final byte[] statistics; // ShardTerms of this shard, every term kept
    public final long liveDocs; // documents searches see (the reader's numDocs)
    public final long maxSeqNo; // the shard's highest sequence number: writes since are counted from it
    public final long cpuMillis; // CPU time of reading it (-1: not measured)

    public ShardReport(int shard, byte[] statistics, long liveDocs, long maxSeqNo, long cpuMillis) {
        this.shard = shard;
        this.statistics = statistics;
        this.liveDocs = liveDocs;
        this.maxSeqNo = maxSeqNo;
        this.cpuMillis = cpuMillis;
    }

    /** Reads one shard's report from {@code reader} (as the nodes action does on a shard copy). */
    public static ShardReport read(int shard, org.apache.lucene.index.IndexReader reader, java.util.Collection<String> fields,
                                   long maxSeqNo) throws java.io.IOException {
        long cpu = Cpu.nanos();
        byte[] terms = ShardStatisticsReader.read(reader, fields, () -> false);
        return new ShardReport(shard, terms, reader.numDocs(), maxSeqNo, Cpu.millis(cpu, Cpu.nanos()));
    }
}
