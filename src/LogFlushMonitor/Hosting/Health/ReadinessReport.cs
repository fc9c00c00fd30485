using System.Text.Json.Serialization;

namespace LogFlushMonitor.Hosting;

/// <summary>The body of /readyz.</summary>
/// <param name="Status"><c>ready</c>, <c>not_ready</c> or <c>starting</c>.</param>
/// <param name="Components">Each component (pipeline, source:…) by name.</param>
public sealed record ReadinessReport(string Status, IReadOnlyDictionary<string, ComponentReport> Components);

/// <summary>One component of /readyz.</summary>
/// <param name="State">
/// <c>ready</c>; <c>degraded</c> (a source instance failing, within the grace period: still ready); <c>waiting</c> (no
/// sample delivered yet), <c>down</c> (past the grace period), <c>starting</c>, <c>stopping</c>, <c>failed</c>: not ready.
/// </param>
/// <param name="Reason">Why it is not ready, when it is not.</param>
/// <param name="Instances">For a SQL Server source, each instance: <c>up</c>, <c>degraded</c>, <c>down</c> or <c>waiting</c>.</param>
public sealed record ComponentReport(
    string State,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? Reason,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] IReadOnlyDictionary<string, string>? Instances);

/// <summary>Source-generated serialization of <see cref="ReadinessReport"/> (no reflection: NativeAOT-clean).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.SnakeCaseLower)]
[JsonSerializable(typeof(ReadinessReport))]
internal sealed partial class ReadinessJsonContext : JsonSerializerContext;
