using LogFlushMonitor.Configuration;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Every configuration key the service reads, with the form of its value, its default and its rules: the schema the
/// generator (LogFlushMonitor.Configuration.Generator) derives at build time from <see cref="MonitorOptions"/> and the
/// classes under it, SqlServerSourceOptions included. Nothing here is kept by hand: a property added to an options type
/// is a key of the schema, strictly checked (<see cref="ConfigurationCheck"/>) and compared with docs/configuration.md.
/// </summary>
internal static class ConfigurationSchema
{
    /// <summary>The configuration root as <see cref="MonitorOptions"/> binds it.</summary>
    public static SettingNode Root => MonitorOptions.Schema;

    /// <summary>Binds the whole configuration as the service does (through the binding source generator), for tests.</summary>
    internal static MonitorOptions Bind(IConfiguration configuration) => configuration.Get<MonitorOptions>() ?? new MonitorOptions();

    /// <summary>Top-level sections that belong to others (Serilog's own settings): never reported as unknown.</summary>
    public static IReadOnlyList<string> ForeignSections { get; } = ["Serilog", "Logging"];

    /// <summary>Every value key of <paramref name="node"/> under <paramref name="path"/>, a list's elements as <c>N</c>, in declaration order.</summary>
    public static IEnumerable<(string Key, SettingNode Node)> Keys(SettingNode node, string path = "")
    {
        if (node.Element is { } element)
        {
            foreach (var k in Keys(element, path + ":N"))
            {
                yield return k;
            }
        }
        else if (node.Children is { } children)
        {
            foreach (var (name, child) in children)
            {
                foreach (var k in Keys(child, path.Length == 0 ? name : path + ":" + name))
                {
                    yield return k;
                }
            }
        }
        else
        {
            yield return (path, node);
        }
    }
}
