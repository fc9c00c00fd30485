namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>What a metric stream renders as.</summary>
internal enum FamilyKind
{
    /// <summary>Not expressible in text format 0.0.4 (exponential histogram, delta temporality): dropped.</summary>
    Unsupported,
    Counter,
    Gauge,
    Histogram,
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

    /// <summary><c>le="512"}</c> per bucket bound, filled from the first point (bounds are per stream).</summary>
    public byte[][]? LeLabels { get; set; }
}
