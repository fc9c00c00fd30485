using System.Text.Json;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Recording;

/// <summary>The NDJSON property names and type values, encoded once.</summary>
internal static class NdjsonNames
{
    public static readonly JsonEncodedText Type = JsonEncodedText.Encode("type");
    public static readonly JsonEncodedText T = JsonEncodedText.Encode("t");
    public static readonly JsonEncodedText Instance = JsonEncodedText.Encode("instance");
    public static readonly JsonEncodedText DbId = JsonEncodedText.Encode("db_id");
    public static readonly JsonEncodedText Db = JsonEncodedText.Encode("db");
    public static readonly JsonEncodedText WriteSize = JsonEncodedText.Encode("write_size");
    public static readonly JsonEncodedText Block = JsonEncodedText.Encode("block");
    public static readonly JsonEncodedText Seq = JsonEncodedText.Encode("seq");
    public static readonly JsonEncodedText DurationUs = JsonEncodedText.Encode("duration_us");
    public static readonly JsonEncodedText WaitType = JsonEncodedText.Encode("wait_type");
    public static readonly JsonEncodedText Object = JsonEncodedText.Encode("object");
    public static readonly JsonEncodedText CounterName = JsonEncodedText.Encode("counter");
    public static readonly JsonEncodedText CounterInstance = JsonEncodedText.Encode("counter_instance");
    public static readonly JsonEncodedText Value = JsonEncodedText.Encode("value");
    public static readonly JsonEncodedText CntrType = JsonEncodedText.Encode("cntr_type");
    public static readonly JsonEncodedText Base = JsonEncodedText.Encode("base");
    public static readonly JsonEncodedText WaitingTasks = JsonEncodedText.Encode("waiting_tasks");
    public static readonly JsonEncodedText WaitTimeMs = JsonEncodedText.Encode("wait_time_ms");
    public static readonly JsonEncodedText MaxWaitTimeMs = JsonEncodedText.Encode("max_wait_time_ms");
    public static readonly JsonEncodedText SignalWaitTimeMs = JsonEncodedText.Encode("signal_wait_time_ms");
    public static readonly JsonEncodedText FileId = JsonEncodedText.Encode("file_id");
    public static readonly JsonEncodedText NumOfWrites = JsonEncodedText.Encode("num_of_writes");
    public static readonly JsonEncodedText NumOfBytesWritten = JsonEncodedText.Encode("num_of_bytes_written");
    public static readonly JsonEncodedText IoStallWriteMs = JsonEncodedText.Encode("io_stall_write_ms");
    public static readonly JsonEncodedText StartTime = JsonEncodedText.Encode("start_time");
    public static readonly JsonEncodedText Kind = JsonEncodedText.Encode("kind");
    public static readonly JsonEncodedText Count = JsonEncodedText.Encode("count");
    public static readonly JsonEncodedText Sessions = JsonEncodedText.Encode("sessions");
    public static readonly JsonEncodedText LongestWaitMs = JsonEncodedText.Encode("longest_wait_ms");
    public static readonly JsonEncodedText App = JsonEncodedText.Encode("app");
    public static readonly JsonEncodedText Transactions = JsonEncodedText.Encode("transactions");
    public static readonly JsonEncodedText LogBytesUsed = JsonEncodedText.Encode("log_bytes_used");
    public static readonly JsonEncodedText LogBytesReserved = JsonEncodedText.Encode("log_bytes_reserved");
    public static readonly JsonEncodedText Ag = JsonEncodedText.Encode("ag");
    public static readonly JsonEncodedText Replica = JsonEncodedText.Encode("replica");
    public static readonly JsonEncodedText Role = JsonEncodedText.Encode("role");
    public static readonly JsonEncodedText AvailabilityMode = JsonEncodedText.Encode("availability_mode");
    public static readonly JsonEncodedText SyncState = JsonEncodedText.Encode("synchronization_state");
    public static readonly JsonEncodedText LogSendQueueKb = JsonEncodedText.Encode("log_send_queue_kb");
    public static readonly JsonEncodedText LogSendRateKbPerSecond = JsonEncodedText.Encode("log_send_rate_kb_per_s");
    public static readonly JsonEncodedText RedoQueueKb = JsonEncodedText.Encode("redo_queue_kb");
    public static readonly JsonEncodedText RedoRateKbPerSecond = JsonEncodedText.Encode("redo_rate_kb_per_s");
    public static readonly JsonEncodedText SecondaryLagSeconds = JsonEncodedText.Encode("secondary_lag_s");
    public static readonly JsonEncodedText LastHardenedAgeSeconds = JsonEncodedText.Encode("last_hardened_age_s");

    public static readonly JsonEncodedText Flush = JsonEncodedText.Encode("flush");
    public static readonly JsonEncodedText FlushComplete = JsonEncodedText.Encode("flush_complete");
    public static readonly JsonEncodedText Wait = JsonEncodedText.Encode("wait");
    public static readonly JsonEncodedText Counter = JsonEncodedText.Encode("counter");
    public static readonly JsonEncodedText WaitStats = JsonEncodedText.Encode("wait_stats");
    public static readonly JsonEncodedText FileStats = JsonEncodedText.Encode("file_stats");
    public static readonly JsonEncodedText ServerStart = JsonEncodedText.Encode("server_start");
    public static readonly JsonEncodedText PollCompleted = JsonEncodedText.Encode("poll_completed");
    public static readonly JsonEncodedText Loss = JsonEncodedText.Encode("loss");
    public static readonly JsonEncodedText Database = JsonEncodedText.Encode("database");
    public static readonly JsonEncodedText FlushBucket = JsonEncodedText.Encode("flush_bucket");
    public static readonly JsonEncodedText WriteLogWaiting = JsonEncodedText.Encode("writelog_waiting");
    public static readonly JsonEncodedText LogWriters = JsonEncodedText.Encode("log_writers");
    public static readonly JsonEncodedText HadrReplica = JsonEncodedText.Encode("hadr_replica");
    public static readonly JsonEncodedText HadrReplicas = JsonEncodedText.Encode("hadr_replicas");

    public static readonly JsonEncodedText Counters = JsonEncodedText.Encode("counters");
    public static readonly JsonEncodedText WaitStatsKind = JsonEncodedText.Encode("wait_stats");
    public static readonly JsonEncodedText FileStatsKind = JsonEncodedText.Encode("file_stats");

    public static JsonEncodedText Of(PollKind kind) => kind switch
    {
        PollKind.Counters => Counters,
        PollKind.WaitStats => WaitStatsKind,
        PollKind.WriteLogWaiters => WriteLogWaiting,
        PollKind.LogWriters => LogWriters,
        PollKind.HadrReplicas => HadrReplicas,
        _ => FileStatsKind,
    };
}
