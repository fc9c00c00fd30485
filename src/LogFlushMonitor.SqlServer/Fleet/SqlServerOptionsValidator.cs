using LogFlushMonitor.Configuration;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.SqlServer.Fleet;

/// <summary>
/// Checks <see cref="SqlServerSourceOptions"/> at start. Each message names the setting by its configuration path
/// (Sources:SqlServer:...) and what to do; none quotes a connection string.
/// </summary>
public static class SqlServerOptionsValidator
{
    /// <summary>The configuration section the options bind from.</summary>
    public const string Section = "Sources:SqlServer";

    /// <summary>The most entries <c>Sources:SqlServer:Counters</c> may have (a pattern covers many counters).</summary>
    public const int MaxCounterEntries = 100;

    /// <summary>
    /// Every problem found; empty when the options are usable: the rules written as attributes on the options (checked by
    /// the generated validator), then the rules between settings, which attributes cannot say.
    /// </summary>
    public static IReadOnlyList<string> Validate(SqlServerSourceOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var problems = new List<string>();
        if (new SqlServerSourceOptionsRules().Validate(Section, options) is { Failed: true, Failures: { } failures })
        {
            problems.AddRange(failures);
        }

        if (!Shard.TryParse(options.Shard, out _, out var shardProblem))
        {
            problems.Add($"{Section}:Shard {shardProblem}.");
        }

        if (options.ReconnectDelay > options.MaxReconnectDelay)
        {
            var key = $"{Section}:ReconnectDelay";
            problems.Add($"{key} is {options.ReconnectDelay}: it must be at most MaxReconnectDelay ({options.MaxReconnectDelay}), default {SqlServerSourceOptions.Schema.Children!["ReconnectDelay"].DefaultText} ({SettingKeys.Where(key)}).");
        }

        Counters(options.Counters);
        var names = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < options.Instances.Count; i++)
        {
            var instance = options.Instances[i];
            var path = $"{Section}:Instances:{i}";
            if (string.IsNullOrWhiteSpace(instance.Name))
            {
                // Required ([RequiredSetting]): the attribute's message says so.
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

            Databases(instance.IncludeDatabases, $"{path}:IncludeDatabases");
            Databases(instance.ExcludeDatabases, $"{path}:ExcludeDatabases");
        }

        return problems;

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
}

/// <summary>The rules written as attributes on <see cref="SqlServerSourceOptions"/> and its instances, checked by generated code (no reflection).</summary>
[OptionsValidator]
internal sealed partial class SqlServerSourceOptionsRules : IValidateOptions<SqlServerSourceOptions>;
