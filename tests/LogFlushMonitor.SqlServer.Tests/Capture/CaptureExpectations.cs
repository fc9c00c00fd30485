using System.Globalization;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace LogFlushMonitor.SqlServer.Tests.Capture;

/// <summary>
/// What a capture implies on /metrics, worked out from the capture alone by a small reference computation that shares no
/// code with the product (issue 30 item 2): a wrong belief in the product then shows as a difference instead of moving
/// both sides together.
/// <list type="bullet">
/// <item>Counters: each database's increase of Log Flushes/sec, Log Bytes Flushed/sec and Log Flush Wait Time between
/// the capture's two polls, system databases included, the engine's internal instances left out, _Total as the
/// instance's own; on Azure (engine edition 5 or 8) a GUID instance is the database whose physical_database_name is its
/// first 36 characters, as Telegraf's Azure queries map it (an exact name before a suffixed one; master out of it).</item>
/// <item>The stream: the histogram target the capture read from the same session counts its log_flush_start events by
/// write size: the flushes and bytes the stream must have delivered, over all databases. Per database, the events must
/// match the counter's increase scaled by the stream's time over the polls' gap, within 25 % and 2 flushes.</item>
/// <item>The agreement: the histogram's flushes and bytes over the counters' increase of the databases the default
/// session watches (database_id 2 and above 4), exported when the server side reaches the agreement's minimum.</item>
/// <item>Availability replicas: the last poll's queues and rates (KB, KB/s) in bytes, the lag in seconds.</item>
/// </list>
/// </summary>
internal sealed partial class CaptureExpectations
{
    private const string FlushesCounter = "Log Flushes/sec", BytesCounter = "Log Bytes Flushed/sec", WaitCounter = "Log Flush Wait Time";
    private static readonly HashSet<string> Internal = new(StringComparer.OrdinalIgnoreCase) { "mssqlsystemresource", "model_msdb", "model_replicatedmaster", "model_masterdb", "model_userdb" };

    private CaptureExpectations()
    {
    }

    /// <summary>Per database (mapped name): the counters' increases.</summary>
    public Dictionary<string, (long Flushes, long Bytes, long WaitMs)> Counters { get; } = new(StringComparer.Ordinal);

    /// <summary>_Total's increase of Log Flushes/sec, when the capture has two counter polls.</summary>
    public long? InstanceFlushes { get; private set; }

    /// <summary>The histogram target's flushes and bytes (null without one).</summary>
    public (long Flushes, long Bytes)? Histogram { get; private set; }

    /// <summary>The agreement ratios the capture implies, by quantity, with the server side they rest on.</summary>
    public Dictionary<string, (double Ratio, double Server)> Agreement { get; } = new(StringComparer.Ordinal);

    /// <summary>Per (database, replica): the replica's figures in exported units (null where the capture has NULL).</summary>
    public Dictionary<(string Database, string Replica), (double? SendQueueBytes, double? SendRate, double? RedoQueueBytes, double? RedoRate, double? LagSeconds)> Replicas { get; } = [];

    /// <summary>Every database name the capture names (sys.databases).</summary>
    public HashSet<string> Databases { get; } = new(StringComparer.Ordinal);

    /// <summary>The stream's time over the polls' gap (manifest): the factor between a database's events and its counter increase.</summary>
    public double StreamOverPolls { get; private set; } = 1;

    /// <summary>Whether the capture implies anything a replay can be held to.</summary>
    public bool Any => Counters.Count > 0 || Histogram is not null || Replicas.Count > 0;

    /// <summary>Works it all out from <paramref name="server"/>'s capture.</summary>
    public static CaptureExpectations From(CapturedSqlServer server)
    {
        var e = new CaptureExpectations();
        var ids = (server.Captured("databases").LastOrDefault()?["rows"]?.AsArray() ?? [])
            .ToDictionary(r => (int)r![0]!, r => (string)r![1]!);
        foreach (var name in ids.Values)
        {
            e.Databases.Add(name);
        }

        var edition = (int?)server.Captured("server_identity").FirstOrDefault()?["rows"]?.AsArray().FirstOrDefault()?[0] ?? 0;
        var physical = edition is 5 or 8
            ? (server.Captured("physical_database_names").FirstOrDefault()?["rows"]?.AsArray() ?? [])
                .Where(r => (string)r![0]! != "master").ToDictionary(r => ((string)r![1]!).Trim(), r => (string)r![0]!, StringComparer.OrdinalIgnoreCase)
            : null;
        var polls = server.Captured("counters");
        if (polls.Count == 2 && polls.All(p => p["error"] is null))
        {
            var (first, second) = (Readings(polls[0], physical), Readings(polls[1], physical));
            foreach (var ((counter, instance), value) in second)
            {
                if (!first.TryGetValue((counter, instance), out var before))
                {
                    continue;
                }

                var increase = value - before;
                if (instance == "_Total")
                {
                    e.InstanceFlushes = counter == FlushesCounter ? increase : e.InstanceFlushes;
                    continue;
                }

                var c = e.Counters.GetValueOrDefault(instance);
                e.Counters[instance] = counter switch
                {
                    FlushesCounter => c with { Flushes = increase },
                    BytesCounter => c with { Bytes = increase },
                    _ => c with { WaitMs = increase },
                };
            }
        }

        if (server.HistogramXml is { } xml)
        {
            var slots = XDocument.Parse(xml).Root!.Elements("Slot").Select(s => (Count: long.Parse(s.Attribute("count")!.Value, CultureInfo.InvariantCulture), Value: long.Parse(s.Element("value")!.Value, CultureInfo.InvariantCulture))).ToList();
            e.Histogram = (slots.Sum(s => s.Count), slots.Sum(s => s.Count * s.Value));
        }

        var manifest = server.Manifest;
        if (manifest["pollGapSeconds"] is { } gap && manifest["streamSeconds"] is { } stream && (double)gap > 0)
        {
            e.StreamOverPolls = (double)stream / (double)gap;
        }

        // The agreement: the histogram over the counters of the databases the default session watches (2 and above 4).
        if (e.Histogram is { } h && e.Counters.Count > 0)
        {
            var watched = e.Counters.Where(c => ids.Any(i => i.Value == c.Key && (i.Key == 2 || i.Key > 4))).Select(c => c.Value).ToList();
            var (flushes, bytes) = (watched.Sum(w => w.Flushes), watched.Sum(w => w.Bytes));
            if (flushes >= 200)
            {
                e.Agreement["flushes"] = ((double)h.Flushes / flushes, flushes);
            }

            if (bytes >= 256 * 1024)
            {
                e.Agreement["flushed_bytes"] = ((double)h.Bytes / bytes, bytes);
            }
        }

        foreach (var row in server.Captured("hadr_replicas").LastOrDefault()?["rows"]?.AsArray() ?? [])
        {
            double? Kb(int i) => row![i] is JsonValue v ? (long)v * 1024.0 : null;
            e.Replicas[((string)row![1]!, (string)row[3]!)] = (Kb(8), Kb(9), Kb(10), Kb(11), row[12] is JsonValue lag ? (long)lag : null);
        }

        return e;
    }

    /// <summary>
    /// What <paramref name="exposition"/> (a /metrics text of instance <paramref name="instance"/>) gets wrong against the
    /// capture, one line each; empty when it shows what the capture implies.
    /// </summary>
    public List<string> Mismatches(string exposition, string instance)
    {
        var samples = Parse(exposition).Where(s => s.Labels.GetValueOrDefault("sqlserver_instance_name") == instance).ToList();
        double? Value(string metric, params (string Label, string Value)[] labels) =>
            samples.FirstOrDefault(s => s.Name == metric && labels.All(l => s.Labels.GetValueOrDefault(l.Label) == l.Value))?.Value;
        var problems = new List<string>();
        void Expect(string what, double expected, double? actual, double tolerance = 0)
        {
            if (actual is not { } a || Math.Abs(a - expected) > tolerance)
            {
                problems.Add($"{what}: the capture implies {expected.ToString(CultureInfo.InvariantCulture)}, /metrics has {(actual?.ToString(CultureInfo.InvariantCulture) ?? "none")}");
            }
        }

        foreach (var (database, (flushes, bytes, waitMs)) in Counters)
        {
            Expect($"{database} Log Flushes/sec", flushes, Value("sqlserver_log_flushes_total", ("sqlserver_database_name", database)));
            Expect($"{database} Log Bytes Flushed/sec", bytes, Value("sqlserver_log_flushed_bytes_total", ("sqlserver_database_name", database)));
            Expect($"{database} Log Flush Wait Time", waitMs / 1000.0, Value("sqlserver_log_flush_wait_time_seconds_total", ("sqlserver_database_name", database)), 1e-9);
        }

        if (InstanceFlushes is { } total)
        {
            Expect("_Total Log Flushes/sec", total, Value("sqlserver_instance_log_flushes_total"));
        }

        var streamed = samples.Where(s => s.Name == "sqlserver_log_flush_write_size_bytes_count").ToList();
        if (Histogram is { } h)
        {
            Expect("flushes streamed (the histogram target's count)", h.Flushes, streamed.Sum(s => s.Value));
            Expect("bytes streamed (the histogram target's sum)", h.Bytes, samples.Where(s => s.Name == "sqlserver_log_flush_write_size_bytes_sum").Sum(s => s.Value));
            foreach (var s in streamed.Where(s => s.Value > 0))
            {
                var database = s.Labels["sqlserver_database_name"];
                var counted = Counters.GetValueOrDefault(database).Flushes * StreamOverPolls;
                if (Math.Abs(s.Value - counted) > 2 + (0.25 * counted))
                {
                    problems.Add($"{database}: {s.Value} flushes streamed, its counter's increase implies {counted} (x {StreamOverPolls} for the stream's time) within 25 %");
                }
            }
        }

        foreach (var (quantity, (ratio, _)) in Agreement)
        {
            Expect($"agreement {quantity}", ratio, Value("sqlserver_monitor_agreement_ratio", ("quantity", quantity)), 0.001);
        }

        foreach (var ((database, replica), (sendQueue, sendRate, redoQueue, redoRate, lag)) in Replicas)
        {
            var at = new[] { ("sqlserver_database_name", database), ("sqlserver_replica_name", replica) };
            void Optional(string what, string metric, double? expected)
            {
                if (expected is { } x)
                {
                    Expect($"{database} on {replica} {what}", x, Value(metric, at));
                }
                else if (Value(metric, at) is { } found)
                {
                    problems.Add($"{database} on {replica} {what}: NULL in the capture, /metrics has {found}");
                }
            }

            Optional("log send queue", "sqlserver_replica_log_send_queue_size_bytes", sendQueue);
            Optional("log send rate", "sqlserver_replica_log_send_rate_bytes_per_second", sendRate);
            Optional("redo queue", "sqlserver_replica_redo_queue_size_bytes", redoQueue);
            Optional("redo rate", "sqlserver_replica_redo_rate_bytes_per_second", redoRate);
            Optional("secondary lag", "sqlserver_replica_secondary_lag_seconds", lag);
        }

        // Nothing invented: every database a database series names is one the capture names (or an id it has no name for).
        foreach (var name in samples.Where(s => s.Name.StartsWith("sqlserver_log_", StringComparison.Ordinal)).Select(s => s.Labels.GetValueOrDefault("sqlserver_database_name")).OfType<string>().Distinct())
        {
            if (!Databases.Contains(name) && !name.StartsWith("id:", StringComparison.Ordinal))
            {
                problems.Add($"/metrics names a database '{name}' the capture's sys.databases does not");
            }
        }

        return problems;
    }

    /// <summary>Whether the replay has read what the expectations rest on: both counter polls, the streamed flushes, the agreement's window.</summary>
    public bool Ready(string exposition, string instance)
    {
        var samples = Parse(exposition).Where(s => s.Labels.GetValueOrDefault("sqlserver_instance_name") == instance).ToList();
        return (InstanceFlushes is not { } total || samples.Any(s => s.Name == "sqlserver_instance_log_flushes_total" && s.Value == total))
            && (Histogram is not { } h || samples.Where(s => s.Name == "sqlserver_log_flush_write_size_bytes_count").Sum(s => s.Value) >= h.Flushes)
            && Agreement.Keys.All(q => samples.Any(s => s.Name == "sqlserver_monitor_agreement_ratio" && s.Labels.GetValueOrDefault("quantity") == q))
            && (Replicas.Count == 0 || samples.Any(s => s.Name == "sqlserver_replica_log_send_queue_size_bytes"));
    }

    /// <summary>A counter poll's readings by (counter, database or _Total), names trimmed and mapped, internal instances left out.</summary>
    private static Dictionary<(string Counter, string Instance), long> Readings(JsonNode poll, Dictionary<string, string>? physical)
    {
        var readings = new Dictionary<(string, string), (long Value, bool Exact)>();
        foreach (var r in poll["rows"]!.AsArray())
        {
            if (!((string)r![0]!).Trim().EndsWith(":Databases", StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            var (counter, raw) = (((string)r[1]!).Trim(), ((string)r[2]!).Trim());
            var (name, exact) = (raw, true);
            if (physical is not null && raw.Length >= 36 && Guid.TryParse(raw[..36], out _))
            {
                if (!physical.TryGetValue(raw[..36], out var mapped))
                {
                    continue;
                }

                (name, exact) = (mapped, raw.Length == 36);
            }

            if (Internal.Contains(name) || counter is not (FlushesCounter or BytesCounter or WaitCounter))
            {
                continue;
            }

            if (!readings.TryGetValue((counter, name), out var known) || (exact && !known.Exact))
            {
                readings[(counter, name)] = ((long)r[3]!, exact);
            }
        }

        return readings.ToDictionary(r => r.Key, r => r.Value.Value);
    }

    private sealed record Sample(string Name, Dictionary<string, string> Labels, double Value);

    private static IEnumerable<Sample> Parse(string exposition)
    {
        foreach (Match m in SampleLine().Matches(exposition))
        {
            var labels = LabelPair().Matches(m.Groups["labels"].Value).ToDictionary(l => l.Groups[1].Value, l => l.Groups[2].Value.Replace("\\\"", "\"", StringComparison.Ordinal).Replace("\\\\", "\\", StringComparison.Ordinal));
            if (double.TryParse(m.Groups["value"].Value, NumberStyles.Float, CultureInfo.InvariantCulture, out var value))
            {
                yield return new Sample(m.Groups["name"].Value, labels, value);
            }
        }
    }

    [GeneratedRegex(@"^(?<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?<labels>[^}]*)\})? (?<value>\S+)", RegexOptions.Multiline)]
    private static partial Regex SampleLine();

    [GeneratedRegex(@"([a-zA-Z_][a-zA-Z0-9_]*)=""((?:[^""\\]|\\.)*)""")]
    private static partial Regex LabelPair();
}
