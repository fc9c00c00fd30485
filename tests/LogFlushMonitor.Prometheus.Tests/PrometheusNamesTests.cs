using LogFlushMonitor.Prometheus.Exposition;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class PrometheusNamesTests
{
    [Theory]
    [InlineData("s", false, "seconds")]
    [InlineData("ms", false, "milliseconds")]
    [InlineData("By", false, "bytes")]
    [InlineData("KiBy", false, "kibibytes")]
    [InlineData("{flush}", false, "")]
    [InlineData("{flush}", true, "")]
    [InlineData("1", true, "ratio")]
    [InlineData("1", false, "")]
    [InlineData("By/s", false, "bytes_per_second")]
    [InlineData("{flush}/s", false, "per_second")]
    [InlineData("ms{request}", false, "milliseconds")]
    [InlineData("%", true, "percent")]
    [InlineData("furlongs", false, "furlongs")]
    [InlineData("", false, "")]
    [InlineData(null, false, "")]
    public void Unit_suffix_follows_the_specification(string? unit, bool isGauge, string expected) =>
        Assert.Equal(expected, PrometheusNames.UnitSuffix(unit, isGauge));

    [Theory]
    [InlineData("sqlserver.log.flushes", "{flush}", true, false, "sqlserver_log_flushes_total")]
    [InlineData("sqlserver.log.flush.duration", "s", false, false, "sqlserver_log_flush_duration_seconds")]
    [InlineData("wait_seconds", "s", false, false, "wait_seconds")]
    [InlineData("bytes.total", "By", true, false, "bytes_total")]
    [InlineData("flushes_total", "{flush}", true, false, "flushes_total")]
    [InlineData("log.used", "1", false, true, "log_used_ratio")]
    [InlineData("a..b--c", "", false, false, "a_b_c")]
    [InlineData("9lives", "", false, false, "_9lives")]
    [InlineData("ns:metric", "", false, false, "ns:metric")]
    public void Family_name_gets_unit_then_total_suffix(string name, string unit, bool counter, bool gauge, string expected) =>
        Assert.Equal(expected, PrometheusNames.FamilyName(name, unit, counter, gauge, addTotalSuffix: true));

    [Theory]
    [InlineData("sqlserver.database.name", "sqlserver_database_name")]
    [InlineData("a:b", "a_b")]
    [InlineData("__reserved", "_reserved")]
    [InlineData("ünïcode", "_n_code")]
    [InlineData("1st", "_1st")]
    public void Label_names_are_sanitised_and_collapsed(string key, string expected) =>
        Assert.Equal(expected, PrometheusNames.SanitizeLabelName(key));
}
