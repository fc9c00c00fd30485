namespace LogFlushMonitor.SqlServer.PerfMon;

/// <summary>One counter of one instance as PerfMon returned it, before filtering and type mapping.</summary>
/// <param name="Counter">The counter name, e.g. "Log Flushes/sec".</param>
/// <param name="Instance">The PerfMon instance: a database name or "_Total".</param>
/// <param name="PerfMonType">The int value of the PerformanceCounterType.</param>
/// <param name="RawValue">The raw value (cumulative for rate counters).</param>
/// <param name="BaseValue">The raw value of the base counter, 0 when the type has none.</param>
internal readonly record struct PerfMonRow(string Counter, string Instance, int PerfMonType, long RawValue, long BaseValue);
