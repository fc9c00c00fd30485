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
    public static Result Inspect(IConfiguration configuration) => Inspect(configuration, "", ConfigurationSchema.Root);

    /// <summary>Checks the section <paramref name="path"/> of <paramref name="configuration"/> against its part of the schema.</summary>
    public static Result InspectSection(IConfiguration configuration, string path)
    {
        var node = ConfigurationSchema.Root;
        foreach (var name in path.Split(':'))
        {
            node = node.Children![name];
        }

        return Inspect(configuration.GetSection(path), path, node);
    }

    private static Result Inspect(IConfiguration configuration, string path, ConfigurationNode node)
    {
        var errors = new List<string>();
        var warnings = new List<string>();
        if (path.Length == 0)
        {
            foreach (var child in configuration.GetChildren())
            {
                if (node.Children!.TryGetValue(child.Key, out var known))
                {
                    Walk(child, known, errors, warnings);
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
            Walk((IConfigurationSection)configuration, node, errors, warnings);
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
            }
        }

        return new Result(errors, warnings);
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

    private static void Walk(IConfigurationSection section, ConfigurationNode node, List<string> errors, List<string> warnings)
    {
        if (node.IsValue)
        {
            if (section.Value is { } value && !node.Accepts(value))
            {
                errors.Add($"{section.Path} is '{value}', which is not {node.Expected}. Fix it where it is set (configuration key {section.Path}, environment variable {EnvironmentVariable(section.Path)}).");
            }

            foreach (var child in section.GetChildren())
            {
                warnings.Add($"Unknown configuration key {child.Path} (ignored): {section.Path} is a single value, not a section.");
            }

            return;
        }

        if (section.Value is { Length: > 0 } && !section.GetChildren().Any())
        {
            var keys = node.Children is { } c ? "it holds " + string.Join(", ", c.Keys.Select(k => $"{section.Path}:{k}")) : $"its elements are {section.Path}:0, {section.Path}:1, ...";
            warnings.Add($"{section.Path} is a section, not a value: '{section.Value}' is ignored ({keys}).");
            return;
        }

        foreach (var child in section.GetChildren())
        {
            if (node.Element is { } element)
            {
                Walk(child, element, errors, warnings);
            }
            else if (node.Children!.TryGetValue(child.Key, out var known))
            {
                Walk(child, known, errors, warnings);
            }
            else
            {
                var hint = ConfigurationSuggestions.Nearest(child.Key, node.Children.Keys) is { } near
                    ? $"Did you mean {section.Path}:{near}?"
                    : $"Known keys here: {string.Join(", ", node.Children.Keys)}.";
                warnings.Add($"Unknown configuration key {child.Path} (ignored). {hint}");
            }
        }
    }

    private static string EnvironmentVariable(string path) =>
        MonitorHost.EnvironmentPrefix + path.Replace(":", "__", StringComparison.Ordinal).ToUpperInvariant();
}
