using YamlDotNet.RepresentationModel;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>Paths of the repository's deployment files and a plain reading of YAML documents.</summary>
internal static class DeployFiles
{
    /// <summary>The repository root (the folder holding LogFlushMonitor.sln).</summary>
    public static string Root { get; } = FindRoot();

    public static string Path(params string[] parts) => System.IO.Path.Combine([Root, .. parts]);

    /// <summary>Every document of a YAML stream, as nested dictionaries (string keys), lists and scalars (strings).</summary>
    public static IReadOnlyList<object?> ReadYamlDocuments(string text)
    {
        var stream = new YamlStream();
        stream.Load(new StringReader(text));
        return [.. stream.Documents.Select(d => ToPlain(d.RootNode))];
    }

    /// <summary>One YAML document as nested dictionaries, lists and scalars.</summary>
    public static Dictionary<string, object?> ReadYaml(string text) =>
        ReadYamlDocuments(text).Single() as Dictionary<string, object?> ?? throw new InvalidDataException("the YAML document is not a mapping");

    public static Dictionary<string, object?> Map(object? node, string what) =>
        node as Dictionary<string, object?> ?? throw new InvalidDataException($"{what} is not a mapping");

    public static List<object?> List(object? node, string what) =>
        node as List<object?> ?? throw new InvalidDataException($"{what} is not a list");

    /// <summary>Follows mapping keys; null when one is missing.</summary>
    public static object? At(object? node, params string[] keys)
    {
        foreach (var key in keys)
        {
            if (node is not Dictionary<string, object?> map || !map.TryGetValue(key, out node))
            {
                return null;
            }
        }

        return node;
    }

    public static string? Text(object? node, params string[] keys) => At(node, keys) as string;

    private static object? ToPlain(YamlNode node) => node switch
    {
        YamlMappingNode m => m.Children.ToDictionary(c => ((YamlScalarNode)c.Key).Value!, c => ToPlain(c.Value)),
        YamlSequenceNode s => s.Children.Select(ToPlain).ToList(),
        YamlScalarNode { Value: var v } => v,
        _ => throw new InvalidDataException($"unexpected YAML node {node.NodeType}"),
    };

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(System.IO.Path.Combine(dir.FullName, "LogFlushMonitor.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("LogFlushMonitor.sln not found above " + AppContext.BaseDirectory);
    }
}
