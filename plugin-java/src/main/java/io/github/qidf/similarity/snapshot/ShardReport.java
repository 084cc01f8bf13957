package io.github.qidf.similarity.snapshot;

/** What one shard copy reports to the node taking a snapshot: its statistics and its size. */
public final class ShardReport {

    public final int shard;
    public final byte[] statistics; // StatisticsSnapshot.encode() of this shard, every term kept
    public final long liveDocs; // documents searches see (the reader's numDocs)
    public final long maxSeqNo; // the shard's highest sequence number: writes since are counted from it

    public ShardReport(int shard, byte[] statistics, long liveDocs, long maxSeqNo) {
        this.shard = shard;
        this.statistics = statistics;
        this.liveDocs = liveDocs;
        this.maxSeqNo = maxSeqNo;
    }
}
