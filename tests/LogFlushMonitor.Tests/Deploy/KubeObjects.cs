using System.Text.Json;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>What the Kubernetes tests (kustomize base, Helm chart) read from rendered objects, and how they run the pod's entrypoint.</summary>
internal static class KubeObjects
{
    /// <summary>The one object of a kind (and name, when given).</summary>
    public static Dictionary<string, object?> Single(IReadOnlyList<Dictionary<string, object?>> objects, string kind, string? name = null) =>
        Assert.Single(objects, o => (string?)o["kind"] == kind && (name is null || DeployFiles.Text(o, "metadata", "name") == name));

    /// <summary>The one container of a StatefulSet's pod.</summary>
    public static Dictionary<string, object?> Container(Dictionary<string, object?> statefulSet) =>
        DeployFiles.Map(Assert.Single(DeployFiles.List(DeployFiles.At(statefulSet, "spec", "template", "spec", "containers"), "containers")), "container");

    /// <summary>A YAML node as JSON with its mapping keys sorted (kustomize sorts them; Helm keeps the template's order).</summary>
    public static string Canonical(object? node) => JsonSerializer.Serialize(Sorted(node));

    /// <summary>
    /// The arguments the container's entrypoint gives the service: its one-line script run the way the kubelet hands it
    /// to /bin/sh ("$$" unescaped to "$"), with `exec /app/logflushmonitor` replaced by echo. Skips when there is no sh.
    /// </summary>
    public static async Task<string> EntrypointArgumentsAsync(Dictionary<string, object?> container, IDictionary<string, string?> environment)
    {
        Assert.Equal(["/bin/sh", "-c"], DeployFiles.List(container["command"], "command").Select(c => (string)c!));
        var script = ((string)Assert.Single(DeployFiles.List(container["args"], "args"))!).Replace("$$", "$", StringComparison.Ordinal);
        Assert.Contains("exec /app/logflushmonitor run", script, StringComparison.Ordinal);
        var shell = Tool.Find("sh");
        Skip.If(shell is null, "no /bin/sh to run the entrypoint with");
        var (code, stdout, stderr) = await Tool.RunAsync(shell!, ["-c", script.Replace("exec /app/logflushmonitor", "echo", StringComparison.Ordinal)], environment: environment);
        Assert.True(code == 0, stderr);
        return stdout.Trim();
    }

    private static object? Sorted(object? node) => node switch
    {
        Dictionary<string, object?> map => new SortedDictionary<string, object?>(map.ToDictionary(kv => kv.Key, kv => Sorted(kv.Value)), StringComparer.Ordinal),
        List<object?> list => list.Select(Sorted).ToList(),
        _ => node,
    };
}
