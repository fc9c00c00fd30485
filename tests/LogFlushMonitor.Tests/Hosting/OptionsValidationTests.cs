using LogFlushMonitor.Simulation;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

public class OptionsValidationTests
{
    private static readonly MonitorOptionsValidator Validator = new(SimulationScenarios.Names);

    private static MonitorOptions Valid() => new() { Sources = { Simulate = { Scenario = "mixed" } } };

    [Fact]
    public void Defaults_with_a_scenario_are_valid()
    {
        Assert.True(Validator.Validate(null, Valid()).Succeeded);
    }

    [Fact]
    public void No_source_fails_and_says_what_to_configure()
    {
        var result = Validator.Validate(null, new MonitorOptions());
        Assert.True(result.Failed);
        Assert.Contains("No source is configured", result.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("--simulate", result.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("--replay", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void An_unknown_scenario_names_the_setting_and_the_valid_names()
    {
        var o = Valid();
        o.Sources.Simulate.Scenario = "nope";
        var message = Validator.Validate(null, o).FailureMessage;
        Assert.Contains("Sources:Simulate:Scenario", message, StringComparison.Ordinal);
        Assert.Contains("LOGFLUSHMONITOR__SOURCES__SIMULATE__SCENARIO", message, StringComparison.Ordinal);
        Assert.Contains("autocommit", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("not a url", "grpc", "Exporters:Otlp:Endpoint")]
    [InlineData("ftp://collector:4317", "grpc", "Exporters:Otlp:Endpoint")]
    [InlineData("http://collector:4317", "thrift", "Exporters:Otlp:Protocol")]
    public void A_bad_otlp_setting_is_named(string endpoint, string protocol, string key)
    {
        var o = Valid();
        o.Exporters.Otlp = new OtlpOptions { Enabled = true, Endpoint = endpoint, Protocol = protocol };
        var result = Validator.Validate(null, o);
        Assert.True(result.Failed);
        Assert.Contains(key, result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Otlp_headers_with_secrets_are_never_echoed()
    {
        var o = Valid();
        o.Exporters.Otlp = new OtlpOptions { Enabled = true, Endpoint = "http://c:4317", Headers = "api-key-s3cr3t" };
        var message = Validator.Validate(null, o).FailureMessage;
        Assert.Contains("Exporters:Otlp:Headers", message, StringComparison.Ordinal);
        Assert.DoesNotContain("s3cr3t", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Http:Urls", "https//x")]
    [InlineData("Log:Format", "xml")]
    [InlineData("Log:Level", "Loud")]
    [InlineData("Pipeline:ChannelCapacity", "5")]
    [InlineData("Sources:Replay:Path", "/no/such/file.ndjson")]
    public void Each_bad_setting_is_named(string key, string value)
    {
        var o = Valid();
        switch (key)
        {
            case "Http:Urls": o.Http.Urls = value; break;
            case "Log:Format": o.Log.Format = value; break;
            case "Log:Level": o.Log.Level = value; break;
            case "Pipeline:ChannelCapacity": o.Pipeline.ChannelCapacity = int.Parse(value, System.Globalization.CultureInfo.InvariantCulture); break;
            case "Sources:Replay:Path": o.Sources.Replay.Path = value; break;
        }

        var result = Validator.Validate(null, o);
        Assert.True(result.Failed);
        Assert.Contains(key, result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Every_exporter_off_fails()
    {
        var o = Valid();
        o.Exporters.Prometheus.Enabled = false;
        Assert.Contains("No exporter is enabled", Validator.Validate(null, o).FailureMessage, StringComparison.Ordinal);
    }
}
