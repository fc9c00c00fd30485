namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>What a metric stream renders as.</summary>
internal enum FamilyKind
{
    /// <summary>Not expressible in either format (delta temporality, summaries): dropped.</summary>
    Unsupported,
    Counter,
    Gauge,
    Histogram,

    /// <summary>
    /// An exponential histogram of its own (no classic stream beside it): a native-only histogram in protobuf; text
    /// format 0.0.4 cannot carry it, so it is dropped there.
    /// </summary>
    NativeHistogram,

    /// <summary>
    /// The exponential twin of a classic histogram stream (<see cref="PrometheusNativeHistograms.StreamSuffix"/>): not a
    /// family of its own, its buckets go into the classic family's protobuf histograms.
    /// </summary>
    NativeTwin,
}

/// <summary>The UTF-8 pieces of one metric family, built once per metric stream and reused by every scrape.</summary>
internal sealed class MetricFamily
{
    public required FamilyKind Kind { get; init; }

    public required string Name { get; init; }

    public required byte[] Header { get; init; }

    public required byte[] NameBytes { get; init; }

    public required byte[] BucketName { get; init; }

    public required byte[] SumName { get; init; }

    public required byte[] CountName { get; init; }

    /// <summary><c>otel_scope_name="…",otel_scope_version="…"</c>, or empty.</summary>
    public required byte[] ScopeLabels { get; init; }

    /// <summary>The meter's name and version, identifying its <c>otel_scope_info</c> line; null when there is none.</summary>
    public string? ScopeKey { get; init; }

    /// <summary>The <c>otel_scope_info{…} 1</c> line for a meter with scope attributes, or null.</summary>
    public byte[]? ScopeInfoLine { get; init; }

    /// <summary>The description as UTF-8 (unescaped, for protobuf), or null when there is none.</summary>
    public byte[]? Help { get; init; }

    /// <summary>The scope labels as encoded <c>LabelPair</c> fields of a protobuf <c>Metric</c>, or empty.</summary>
    public required byte[] ProtoScopeLabels { get; init; }

    /// <summary>The <c>otel_scope_info</c> series as an encoded protobuf <c>Metric</c> body, or null.</summary>
    public byte[]? ProtoScopeInfo { get; init; }

    /// <summary>For a <see cref="FamilyKind.NativeTwin"/>: the name of the classic stream it belongs to.</summary>
    public string? TwinOf { get; init; }

    /// <summary><c>le="512"}</c> per bucket bound, filled from the first point (bounds are per stream).</summary>
    public byte[][]? LeLabels { get; set; }
}
