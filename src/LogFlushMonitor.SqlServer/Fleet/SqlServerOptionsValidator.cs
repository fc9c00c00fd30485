using System.Text.RegularExpressions;
using LogFlushMonitor.SqlServer.Sql;

namespace LogFlushMonitor.SqlServer.Fleet;

/// <summary>
/// Checks <see cref="SqlServerSourceOptions"/> at start. Each message names the setting by its configuration path
/// (Sources:SqlServer:...) and what to do; none quotes a connection string.
/// </summary>
public static partial class SqlServerOptionsValidator
{
    /// <summary>The configuration section the options bind from.</summary>
    public const string Section = "Sources:SqlServer";

    /// <summary>The most entries <c>Sources:SqlServer:Counters</c> may have (a pattern covers many counters).</summary>
    public const int MaxCounterEntries = 100;

    /// <summary>Every problem found; empty when the options are usable.</summary>
    public static IReadOnlyList<string> Validate(SqlServerSourceOptions options)
    {
        var problems = new List<string>();
        if (!Shard.TryParse(options.Shard, out _, out var shardProblem))
        {
            problems.Add($"{Section}:Shard {shardProblem}.");
        }

        // A delay longer than about 49 days makes Task.Delay throw; nobody polls less than daily.
        Between(options.PollInterval, "PollInterval", TimeSpan.FromSeconds(1), TimeSpan.FromDays(1), "00:00:15");
        Between(options.CommandTimeout, "CommandTimeout", TimeSpan.FromSeconds(1), TimeSpan.FromHours(1), "00:00:30");
        // SqlClient counts whole seconds and takes 0 as "wait for ever".
        Between(options.ConnectTimeout, "ConnectTimeout", TimeSpan.FromSeconds(1), TimeSpan.FromMinutes(10), "00:00:15");
        Between(options.MaxReconnectDelay, "MaxReconnectDelay", TimeSpan.FromSeconds(1), TimeSpan.FromDays(1), "00:02:00");
        if (options.ReconnectDelay <= TimeSpan.Zero || options.ReconnectDelay > options.MaxReconnectDelay)
        {
            problems.Add($"{Section}:ReconnectDelay is {options.ReconnectDelay}: it must be positive and at most MaxReconnectDelay ({options.MaxReconnectDelay}); default 00:00:01.");
        }

        IntBetween(options.FallbackErrorCount, "FallbackErrorCount", 1, 1000, 3);
        Between(options.FallbackWindow, "FallbackWindow", TimeSpan.FromSeconds(1), TimeSpan.FromDays(1), "00:10:00");
        IntBetween(options.HistogramSlots, "HistogramSlots", 16, 65536, 256);
        IntBetween(options.MaxHistogramSessions, "MaxHistogramSessions", 0, 64, 8);
        IntBetween(options.MaxStreamBufferBytes, "MaxStreamBufferBytes", 1 << 20, 1 << 30, 64 << 20);
        // The host gives all its services 15 s together to stop.
        Between(options.ShutdownTimeout, "ShutdownTimeout", TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(10), "00:00:10");
        Counters(options.Counters);
        var names = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < options.Instances.Count; i++)
        {
            var instance = options.Instances[i];
            var path = $"{Section}:Instances:{i}";
            if (string.IsNullOrWhiteSpace(instance.Name))
            {
                problems.Add($"{path}:Name is empty: give each instance a unique name (it is exported as sqlserver.instance.name).");
            }
            else if (NameProblem(instance.Name) is { } nameProblem)
            {
                problems.Add($"{path}:Name {nameProblem}: an instance name is exported as sqlserver.instance.name and must read as it is written (no invisible differences between two names).");
            }
            else if (names.TryGetValue(instance.Name, out var first))
            {
                // Case-insensitive, like the shard hash: two spellings of one name would land on one series.
                problems.Add($"{path}:Name '{instance.Name}' is already used by {Section}:Instances:{first}: instance names must be unique.");
            }
            else
            {
                names[instance.Name] = i;
            }

            var given = new[] { instance.ConnectionString, instance.ConnectionStringEnvironmentVariable, instance.ConnectionStringFile }.Count(v => !string.IsNullOrWhiteSpace(v));
            if (given != 1)
            {
                problems.Add($"{path}: set exactly one of ConnectionString, ConnectionStringEnvironmentVariable or ConnectionStringFile ({given} set).");
            }

            if (!SessionName().IsMatch(instance.SessionName ?? ""))
            {
                problems.Add($"{path}:SessionName must be 1 to 128 letters, digits, '_' or '-'.");
            }

            if (instance.PollInterval is { } p && (p < TimeSpan.FromSeconds(1) || p > TimeSpan.FromDays(1)))
            {
                problems.Add($"{path}:PollInterval is {p}: use 00:00:01 to 1.00:00:00 (e.g. 00:00:15), or leave it empty for {Section}:PollInterval.");
            }

            if (instance.MaxMemoryKb <= 0)
            {
                problems.Add($"{path}:MaxMemoryKb must be positive (default 4096).");
            }

            if (instance.MaxDispatchLatencySeconds <= 0)
            {
                problems.Add($"{path}:MaxDispatchLatencySeconds must be positive (default 5).");
            }

            Databases(instance.IncludeDatabases, $"{path}:IncludeDatabases");
            Databases(instance.ExcludeDatabases, $"{path}:ExcludeDatabases");
        }

        return problems;

        void Between(TimeSpan value, string name, TimeSpan min, TimeSpan max, string defaultValue)
        {
            if (value < min || value > max)
            {
                problems.Add($"{Section}:{name} is {value}: use {min} to {max} (default {defaultValue}).");
            }
        }

        void IntBetween(int value, string name, int min, int max, int defaultValue)
        {
            if (value < min || value > max)
            {
                problems.Add($"{Section}:{name} is {value}: use {min} to {max} (default {defaultValue}).");
            }
        }

        void Counters(List<string> list)
        {
            if (list.Count > MaxCounterEntries)
            {
                problems.Add($"{Section}:Counters has {list.Count} entries: at most {MaxCounterEntries}; use a pattern such as 'Log Pool *', or '*' for every counter.");
            }

            for (var j = 0; j < list.Count; j++)
            {
                if (SqlIdentifier.Problem(list[j]?.Trim()) is { } problem)
                {
                    problems.Add($"{Section}:Counters:{j} {problem}: a counter name or pattern (with *) is 1 to 128 characters without control characters, e.g. 'Log Pool Requests/sec' or 'Log Pool *'.");
                }
            }
        }

        void Databases(List<string> list, string path)
        {
            for (var j = 0; j < list.Count; j++)
            {
                if (SqlIdentifier.Problem(list[j]) is { } problem)
                {
                    problems.Add($"{path}:{j} {problem}: a database name is 1 to 128 characters without control characters.");
                }
            }
        }
    }

    /// <summary>
    /// Resolves and parses every instance's connection string (inline, from its environment variable or from its file)
    /// as the sources will: one that cannot be read or that SqlClient would refuse is a problem naming the instance and
    /// the setting or keyword, never a value. Run at start, so that a bad string stops the start (exit 2) instead of
    /// leaving its instance silently unstarted.
    /// </summary>
    public static IReadOnlyList<string> ValidateConnections(SqlServerSourceOptions options, Func<string, string?>? environment = null)
    {
        var problems = new List<string>();
        for (var i = 0; i < options.Instances.Count; i++)
        {
            var instance = options.Instances[i];
            try
            {
                _ = Connections.ConnectionStrings.Resolve(instance, environment);
            }
            catch (InvalidOperationException e)
            {
                problems.Add($"{Section}:Instances:{i}: {e.Message}");
            }
        }

        return problems;
    }

    /// <summary>
    /// Why <paramref name="name"/> cannot name an instance, or null: white space at either end, or a character that
    /// does not show (a control or format character such as a zero-width space). "prod" and "prod " or "pro\u200Bd" would
    /// be two instances and two series that look the same on every dashboard.
    /// </summary>
    internal static string? NameProblem(string name)
    {
        if (name.Length > 128)
        {
            return $"is {name.Length} characters long; use at most 128";
        }

        if (char.IsWhiteSpace(name[0]) || char.IsWhiteSpace(name[^1]))
        {
            return "begins or ends with white space";
        }

        foreach (var c in name)
        {
            var category = char.GetUnicodeCategory(c);
            if (category is System.Globalization.UnicodeCategory.Control or System.Globalization.UnicodeCategory.Format
                or System.Globalization.UnicodeCategory.LineSeparator or System.Globalization.UnicodeCategory.ParagraphSeparator)
            {
                return $"holds the invisible character U+{(int)c:X4}";
            }
        }

        return null;
    }

    [GeneratedRegex("^[A-Za-z0-9_-]{1,128}$")]
    private static partial Regex SessionName();
}
