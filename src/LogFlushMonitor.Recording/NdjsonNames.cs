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

    public static readonly JsonEncodedText Counters = JsonEncodedText.Encode("counters");
    public static readonly JsonEncodedText WaitStatsKind = JsonEncodedText.Encode("wait_stats");
    public static readonly JsonEncodedText FileStatsKind = JsonEncodedText.Encode("file_stats");

    public static JsonEncodedText Of(PollKind kind) => kind switch
    {
        PollKind.Counters => Counters,
        PollKind.WaitStats => WaitStatsKind,
        PollKind.WriteLogWaiters => WriteLogWaiting,
        _ => FileStatsKind,
    };
}
