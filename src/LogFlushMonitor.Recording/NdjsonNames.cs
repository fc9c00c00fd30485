using System.Text.Json;

namespace LogFlushMonitor.Recording;

/// <summary>The NDJSON property names and type values of the event and loss lines, encoded once (a signal's are its recording's).</summary>
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
    public static readonly JsonEncodedText Kind = JsonEncodedText.Encode("kind");
    public static readonly JsonEncodedText Count = JsonEncodedText.Encode("count");
    public static readonly JsonEncodedText App = JsonEncodedText.Encode("app");
    public static readonly JsonEncodedText QueryHash = JsonEncodedText.Encode("query_hash");

    public static readonly JsonEncodedText Flush = JsonEncodedText.Encode("flush");
    public static readonly JsonEncodedText FlushComplete = JsonEncodedText.Encode("flush_complete");
    public static readonly JsonEncodedText Wait = JsonEncodedText.Encode("wait");
    public static readonly JsonEncodedText PollCompleted = JsonEncodedText.Encode("poll_completed");
    public static readonly JsonEncodedText Loss = JsonEncodedText.Encode("loss");
}
