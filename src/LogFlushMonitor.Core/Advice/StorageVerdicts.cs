using System.Globalization;
using LogFlushMonitor.Core.Signals;

namespace LogFlushMonitor.Core.Advice;

/// <summary>
/// The write latency the log's storage is published to have: Azure's per service tier (Microsoft's resource-limits
/// pages), or on SQL Server Microsoft's troubleshooting line (I/O waits over 10-15 ms consistently are a bottleneck).
/// </summary>
/// <param name="Name">What the storage is, as a sentence names it ("Azure SQL Database General Purpose").</param>
/// <param name="LowSeconds">The published range's low end (on SQL Server, where the bottleneck line begins).</param>
/// <param name="HighSeconds">The published range's high end (on SQL Server, where it ends).</param>
/// <param name="Source">Where the figure is published (a page named in docs/sqlserver.md with its address).</param>
/// <param name="Published">True for a tier's published latency; false for the on-premises bottleneck line.</param>
public sealed record StorageClass(string Name, double LowSeconds, double HighSeconds, string Source, bool Published)
{
    /// <summary>The range as a sentence shows it: "5-7 ms", "2 ms".</summary>
    public string Range => LowSeconds == HighSeconds
        ? string.Create(CultureInfo.InvariantCulture, $"{LowSeconds * 1000:0.#} ms")
        : string.Create(CultureInfo.InvariantCulture, $"{LowSeconds * 1000:0.#}-{HighSeconds * 1000:0.#} ms");
}

/// <summary>How a measured log write latency stands against the storage it runs on.</summary>
public enum StorageStanding
{
    /// <summary>Faster than the published range (or, on SQL Server, well under the bottleneck line).</summary>
    Better,

    /// <summary>Inside the published range.</summary>
    Within,

    /// <summary>Slower than the published range (or, on SQL Server, inside the 10-15 ms line).</summary>
    Slower,

    /// <summary>SQL Server: over the 10-15 ms line consistently, a bottleneck.</summary>
    Bottleneck,
}

/// <summary>A measured log write latency held against the storage class: the standing and the sentence that says it.</summary>
/// <param name="Standing">How it stands.</param>
/// <param name="Text">"log writes take 6.1 ms on average (io_stall_write_ms / writes): within Azure SQL Database General Purpose's published 5-7 ms write latency (Microsoft, vCore resource limits)".</param>
public sealed record StorageVerdict(StorageStanding Standing, string Text);

/// <summary>The storage classes and the verdict of a measured latency against one.</summary>
public static class StorageVerdicts
{
    /// <summary>Microsoft's vCore resource-limits pages for Azure SQL Database (single databases).</summary>
    public const string VCoreLimits = "Microsoft, \"Resource limits for single databases using the vCore purchasing model\"";

    /// <summary>Microsoft's DTU resource-limits page (service tiers of the DTU model).</summary>
    public const string DtuLimits = "Microsoft, \"DTU-based purchasing model\" (service tiers)";

    /// <summary>Microsoft's resource-limits page for Managed Instance.</summary>
    public const string ManagedInstanceLimits = "Microsoft, \"Resource limits for Azure SQL Managed Instance\"";

    /// <summary>Microsoft's guide to I/O waits on SQL Server.</summary>
    public const string IoTroubleshooting = "Microsoft, \"Troubleshoot slow SQL Server performance caused by I/O issues\"";

    /// <summary>SQL Server's line: I/O waits consistently over 10-15 ms are a bottleneck.</summary>
    public static StorageClass OnPremises { get; } = new("SQL Server storage", 0.010, 0.015, IoTroubleshooting, Published: false);

    /// <summary>
    /// The class of the storage a database's log is on: from Azure's tier when the log-rate governance names one (SQL
    /// Database's Edition, Managed Instance's sku), else SQL Server's line (also for Hyperscale, whose pages publish no
    /// write latency per tier).
    /// </summary>
    public static StorageClass For(LogRateSnapshot? governance)
    {
        var tier = (governance?.Tier ?? "").Replace(" ", "", StringComparison.Ordinal).ToUpperInvariant();
        var instance = governance?.Scope == LogRateSignal.InstanceScope;
        return tier switch
        {
            "GENERALPURPOSE" when instance => new("Azure SQL Managed Instance General Purpose", 0.005, 0.010, ManagedInstanceLimits, true),
            "NEXT-GENGENERALPURPOSE" when instance => new("Azure SQL Managed Instance Next-gen General Purpose", 0.003, 0.005, ManagedInstanceLimits, true),
            "BUSINESSCRITICAL" when instance => new("Azure SQL Managed Instance Business Critical", 0.001, 0.002, ManagedInstanceLimits, true),
            "GENERALPURPOSE" => new("Azure SQL Database General Purpose", 0.005, 0.007, VCoreLimits, true),
            "BUSINESSCRITICAL" => new("Azure SQL Database Business Critical", 0.001, 0.002, VCoreLimits, true),
            "PREMIUM" => new("Azure SQL Database Premium", 0.002, 0.002, DtuLimits, true),
            "BASIC" or "STANDARD" => new("Azure SQL Database " + governance!.Tier, 0.010, 0.010, DtuLimits, true),
            _ => OnPremises,
        };
    }

    /// <summary>
    /// The verdict of <paramref name="seconds"/> (a log write's average, read from <paramref name="measured"/>) against
    /// <paramref name="storage"/>.
    /// </summary>
    public static StorageVerdict Judge(double seconds, string measured, StorageClass storage)
    {
        ArgumentNullException.ThrowIfNull(storage);
        var ms = CommitFigures(seconds);
        if (storage.Published)
        {
            // A published range is "approximate": a tenth of its high end either side is still inside it.
            var (standing, how) = seconds < storage.LowSeconds * 0.9 ? (StorageStanding.Better, "faster than")
                : seconds <= storage.HighSeconds * 1.1 ? (StorageStanding.Within, "within")
                : (StorageStanding.Slower, "slower than");
            var then = standing == StorageStanding.Slower
                ? ": the storage is slower than the tier promises; look at the I/O-governance queue (io_stall_queued_write_ms) and the log write sizes, and raise it with Azure support if it lasts"
                : "";
            return new(standing, $"log writes take {ms} on average ({measured}): {how} {storage.Name}'s published {storage.Range} write latency ({storage.Source}){then}");
        }

        return seconds > storage.HighSeconds
            ? new(StorageStanding.Bottleneck, $"log writes take {ms} on average ({measured}): over the {storage.Range} Microsoft treats as an I/O bottleneck when it lasts ({storage.Source}); SSD/NVMe log writes take well under 1 ms")
            : seconds > storage.LowSeconds
                ? new(StorageStanding.Slower, $"log writes take {ms} on average ({measured}): inside the {storage.Range} line Microsoft treats as a bottleneck when it lasts ({storage.Source})")
                : new(StorageStanding.Within, $"log writes take {ms} on average ({measured}): under the {storage.Range} line Microsoft treats as an I/O bottleneck ({storage.Source})");
    }

    private static string CommitFigures(double seconds) => Aggregation.CommitParts.Milliseconds(seconds);
}
