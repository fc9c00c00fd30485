using LogFlushMonitor.Configuration;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Checks the merged configuration against <see cref="ConfigurationSchema"/> before anything binds it. A value that
/// would not convert (<c>Speed=fast</c>, <c>Duration=5minutes</c>, an instance's <c>Mode=Turbo</c>) is an error naming
/// the key and the form expected: the binder would otherwise throw (exit 1 with a stack trace) or, inside a list,
/// silently drop the whole element (an instance that vanishes). A key we do not know inside our sections is a
/// warning naming the nearest known key (<c>Sources:Simulate:Sped</c>: did you mean Sources:Simulate:Speed?).
/// </summary>
internal static class ConfigurationCheck
{
    /// <summary>Errors (the configuration cannot be used) and warnings (something is ignored), in key order.</summary>
    public sealed record Result(IReadOnlyList<string> Errors, IReadOnlyList<string> Warnings);

    /// <summary>Checks <paramref name="configuration"/> (the root) against the whole schema.</summary>
    public static Result Inspect(IConfiguration configuration) => Inspect(configuration, "", ConfigurationSchema.Root, configuration);

    /// <summary>Checks the section <paramref name="path"/> of <paramref name="configuration"/> against its part of the schema.</summary>
    public static Result InspectSection(IConfiguration configuration, string path)
    {
        var node = ConfigurationSchema.Root;
        foreach (var name in path.Split(':'))
        {
            node = node.Children![name];
        }

        return Inspect(configuration.GetSection(path), path, node, configuration);
    }

    /// <param name="configuration">The part checked (the root, or the section at <paramref name="path"/>).</param>
    /// <param name="path">Its path, empty for the root.</param>
    /// <param name="node">Its part of the schema.</param>
    /// <param name="root">The whole configuration, whose sources tell where a value comes from.</param>
    private static Result Inspect(IConfiguration configuration, string path, SettingNode node, IConfiguration root)
    {
        var errors = new List<string>();
        var warnings = new List<string>();
        if (path.Length == 0)
        {
            foreach (var child in configuration.GetChildren())
            {
                if (node.Children!.TryGetValue(child.Key, out var known))
                {
                    Walk(child, known, Canonical(node, child.Key), errors, warnings);
                }
                else if (!ConfigurationSchema.ForeignSections.Contains(child.Key, StringComparer.OrdinalIgnoreCase)
                    && ConfigurationSuggestions.Nearest(child.Key, node.Children.Keys) is { } near)
                {
                    // Only near misses at the top: the root also holds settings of others (Serilog, environment).
                    warnings.Add($"Unknown configuration key {child.Path} (ignored). Did you mean {near}?");
                }
            }
        }
        else
        {
            Walk((IConfigurationSection)configuration, node, path, errors, warnings); // the caller's path, in the schema's spelling
        }

        var instances = path.Length == 0 ? configuration.GetSection("Sources:SqlServer:Instances") : configuration.GetSection("Instances");
        if (path.Length == 0 || path.Equals("Sources:SqlServer", StringComparison.OrdinalIgnoreCase))
        {
            foreach (var instance in instances.GetChildren())
            {
                if (SecretFileWarning(instance.GetSection("ConnectionStringFile")) is { } warning)
                {
                    warnings.Add(warning);
                }

                if (PasswordInFileWarning(root, instance.GetSection("ConnectionString")) is { } inFile)
                {
                    warnings.Add(inFile);
                }
            }
        }

        return new Result(errors, warnings);
    }

    /// <summary>
    /// A connection string with a password, written into a settings file (appsettings.json or appsettings.{Environment}.json):
    /// the README keeps connection strings out of the file, which is read by whoever reads the configuration, copied into
    /// images and backups, and often committed. Names the key and the file, never the value; the value is used all the same.
    /// </summary>
    private static string? PasswordInFileWarning(IConfiguration configuration, IConfigurationSection key)
    {
        if (string.IsNullOrEmpty(key.Value) || FileOf(configuration, key.Path) is not { } file || !HasPassword(key.Value))
        {
            return null;
        }

        return $"{key.Path} in {file} holds a password (not shown). Keep connection strings out of settings files (they are read by "
            + "whoever reads the configuration, copied into images and backups, and often committed): set "
            + $"{key.Path[..^"ConnectionString".Length]}ConnectionStringEnvironmentVariable to the name of an environment variable "
            + $"that holds it, or {key.Path[..^"ConnectionString".Length]}ConnectionStringFile to a file only the service's user can read (README, \"Watch your SQL Servers\").";
    }

    /// <summary>The settings file <paramref name="path"/>'s value comes from (the last source that sets it), or null when it comes from elsewhere.</summary>
    private static string? FileOf(IConfiguration configuration, string path)
    {
        if (configuration is not IConfigurationRoot root)
        {
            return null;
        }

        foreach (var provider in root.Providers.Reverse())
        {
            if (provider.TryGet(path, out _))
            {
                return provider is Microsoft.Extensions.Configuration.FileConfigurationProvider file
                    ? Path.Combine(file.Source.FileProvider is Microsoft.Extensions.FileProviders.PhysicalFileProvider physical ? physical.Root : "", file.Source.Path ?? "")
                    : null;
            }
        }

        return null;
    }

    /// <summary>Whether a connection string sets Password (or its synonym PWD) to something; one that does not parse is the validator's error.</summary>
    private static bool HasPassword(string connectionString)
    {
        try
        {
            var builder = new System.Data.Common.DbConnectionStringBuilder { ConnectionString = connectionString };
            return (builder.TryGetValue("password", out var password) && !string.IsNullOrEmpty(password as string))
                || (builder.TryGetValue("pwd", out var pwd) && !string.IsNullOrEmpty(pwd as string));
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    /// <summary>A connection string file that every user of the machine can read (mode o+r) holds a password in the open.</summary>
    private static string? SecretFileWarning(IConfigurationSection key)
    {
        if (OperatingSystem.IsWindows() || string.IsNullOrWhiteSpace(key.Value) || !File.Exists(key.Value))
        {
            return null; // a missing file is the validator's error; Windows has ACLs, not modes
        }

        // A mounted Kubernetes secret is a symbolic link (always mode 0777): judge the file it leads to.
        var file = new FileInfo(key.Value).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? key.Value;
        var mode = File.GetUnixFileMode(file);
        return (mode & UnixFileMode.OtherRead) == 0
            ? null
            : $"{key.Path} names '{key.Value}', which every user of this machine can read (mode {Convert.ToString((int)mode, 8).PadLeft(4, '0')}): it holds the connection string and its password. "
                + $"Make it readable by the service's user only: chmod o-r '{key.Value}' (e.g. 0600, or 0640 with a group).";
    }

    private static void Walk(IConfigurationSection section, SettingNode node, string path, List<string> errors, List<string> warnings)
    {
        if (node.IsValue)
        {
            if (section.Value is { } value && !node.Accepts(value))
            {
                errors.Add($"{path} is {Quote(value, node)}, which is not {node.Expected}. Fix it where it is set ({WhereSet(path)}).");
            }

            foreach (var child in section.GetChildren())
            {
                warnings.Add($"Unknown configuration key {path}:{child.Key} (ignored): {path} is a single value, not a section.");
            }

            return;
        }

        var children = section.GetChildren().ToList();
        if (section.Value is { Length: > 0 })
        {
            // A value where a section or a list belongs would be dropped by the binder: the setting the operator meant
            // would silently not apply (a scalar IncludeDatabases would mean every database). Its value is never
            // quoted: what was meant to go under the section may be a connection string.
            errors.Add(node.Element is { } listElement
                ? $"{path} is a list, not a single value. Give each element its position: {ListFix(path, listElement, "")}."
                : $"{path} is a section, not a value: the value given there would be ignored. It holds {string.Join(", ", node.Children!.Keys.Select(k => $"{path}:{k}"))}.");
        }

        if (node.Element is { } element)
        {
            // A list's elements are numbered (Instances:0:Name). A key without a number is what an unnumbered
            // environment variable or command-line key, or a JSON object where an array belongs, produces: the binder
            // would drop it without a word, and the instance meant would not exist.
            var unnumbered = children.Where(c => !IsIndex(c.Key)).ToList();
            if (unnumbered.Count > 0)
            {
                var first = element.Children is null ? unnumbered[0].Key : Canonical(element, unnumbered[0].Key);
                errors.Add($"{path} is a list, but {string.Join(", ", unnumbered.Select(c => $"{path}:{c.Key}"))} {(unnumbered.Count == 1 ? "has" : "have")} no element number. "
                    + $"Give each element its position: {ListFix(path, element, first)}.");
            }

            foreach (var child in children.Where(c => IsIndex(c.Key)))
            {
                Walk(child, element, $"{path}:{child.Key}", errors, warnings);
            }

            return;
        }

        foreach (var child in children)
        {
            if (node.Children!.TryGetValue(child.Key, out var known))
            {
                Walk(child, known, $"{path}:{Canonical(node, child.Key)}", errors, warnings);
            }
            else
            {
                var hint = ConfigurationSuggestions.Nearest(child.Key, node.Children.Keys) is { } near
                    ? $"Did you mean {path}:{near}?"
                    : $"Known keys here: {string.Join(", ", node.Children.Keys)}.";
                warnings.Add($"Unknown configuration key {path}:{child.Key} (ignored). {hint}");
            }
        }
    }

    /// <summary>
    /// How a value appears in a message: quoted (control characters escaped, at most <see cref="MaxQuoted"/>
    /// characters) only when <paramref name="node"/> is a known value that holds no secret; otherwise described
    /// without its text. The one place that decides whether a configured value may be shown: a connection string, a
    /// password or an OTLP header never is, and neither is a value under a key we do not know.
    /// </summary>
    internal static string Quote(string value, SettingNode? node) =>
        node is { IsValue: true, Secret: false }
            ? "'" + LogEscaping.Escape(value.Length <= MaxQuoted ? value : value[..MaxQuoted] + "...") + "'"
            : $"a value of {value.Length} characters (not shown: it may hold a secret)";

    /// <summary>Longest value quoted in a message.</summary>
    private const int MaxQuoted = 200;

    /// <summary>A known key as the schema spells it (an environment variable gives it in capitals).</summary>
    private static string Canonical(SettingNode section, string key) =>
        section.Children!.Keys.FirstOrDefault(k => k.Equals(key, StringComparison.OrdinalIgnoreCase)) ?? key;

    private static bool IsIndex(string key) => key.Length > 0 && key.All(char.IsAsciiDigit);

    /// <summary>The numbered form of a list's first element in each configuration source.</summary>
    private static string ListFix(string list, SettingNode element, string key)
    {
        var leaf = list.Split(':')[^1];
        var example = key.Length > 0 ? $"{list}:0:{key}" : $"{list}:0";
        var json = element.IsValue
            ? $"\"{leaf}\": [ \"...\", \"...\" ]"
            : $"\"{leaf}\": [ {{ {(key.Length > 0 ? $"\"{key}\": ..." : "...")} }} ]";
        return $"{example} (then {list}:1...), as the environment variable {EnvironmentVariable(example)}, "
            + $"on the command line --{example}=..., and in appsettings.json as an array, {json}";
    }

    private static string WhereSet(string path) => $"configuration key {path}, environment variable {EnvironmentVariable(path)}";

    private static string EnvironmentVariable(string path) =>
        SettingKeys.EnvironmentVariable(path);
}
