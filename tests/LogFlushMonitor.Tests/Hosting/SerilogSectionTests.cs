using LogFlushMonitor.Hosting;
using Microsoft.Extensions.Configuration;
using Serilog;
using Serilog.Core;
using Serilog.Events;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// The "Serilog" section is bound by our own code (no assembly scanning, so the NativeAOT build reads it the same):
/// the minimum level and per-source overrides work, anything else fails naming the key.
/// </summary>
public class SerilogSectionTests
{
    private sealed class Collect : ILogEventSink
    {
        public List<LogEvent> Events { get; } = [];

        public void Emit(LogEvent logEvent) => Events.Add(logEvent);
    }

    private static IConfigurationSection Section(params (string Key, string Value)[] settings) =>
        new ConfigurationBuilder().AddInMemoryCollection(settings.Select(s => KeyValuePair.Create(s.Key, (string?)s.Value))).Build().GetSection("Serilog");

    private static List<string> Logged(IConfigurationSection section)
    {
        var sink = new Collect();
        using (var logger = Logging.ApplySerilogSection(new LoggerConfiguration().MinimumLevel.Information(), section).WriteTo.Sink(sink).CreateLogger())
        {
            foreach (var source in new[] { "LogFlushMonitor.SqlServer.Fleet", "LogFlushMonitor.Hosting" })
            {
                var log = logger.ForContext(Constants.SourceContextPropertyName, source);
                log.Debug("debug");
                log.Information("information");
                log.Warning("warning");
            }
        }

        return [.. sink.Events.Select(e => $"{((ScalarValue)e.Properties[Constants.SourceContextPropertyName]).Value} {e.MessageTemplate.Text}")];
    }

    [Fact]
    public void An_override_changes_the_level_of_one_source_and_the_sources_under_it_only()
    {
        var logged = Logged(Section(("Serilog:MinimumLevel:Override:LogFlushMonitor.SqlServer", "Debug"), ("Serilog:MinimumLevel:Override:LogFlushMonitor.Hosting", "Warning")));
        Assert.Equal(["LogFlushMonitor.SqlServer.Fleet debug", "LogFlushMonitor.SqlServer.Fleet information", "LogFlushMonitor.SqlServer.Fleet warning", "LogFlushMonitor.Hosting warning"], logged);
    }

    [Theory]
    [InlineData("Serilog:MinimumLevel")]
    [InlineData("Serilog:MinimumLevel:Default")]
    public void The_minimum_level_applies_to_every_source(string key)
    {
        var logged = Logged(Section((key, "warning")));
        Assert.Equal(["LogFlushMonitor.SqlServer.Fleet warning", "LogFlushMonitor.Hosting warning"], logged);
    }

    [Fact]
    public void No_section_leaves_the_levels_alone()
    {
        Assert.Equal(4, Logged(Section()).Count);
    }

    [Theory]
    [InlineData("Serilog:WriteTo:0:Name", "Seq", "Serilog:WriteTo")]
    [InlineData("Serilog:Using:0", "Serilog.Sinks.Seq", "Serilog:Using")]
    [InlineData("Serilog:MinimumLevel:Overide:X", "Debug", "Serilog:MinimumLevel:Overide")]
    [InlineData("Serilog:MinimumLevel:Override:LogFlushMonitor", "Loud", "Serilog:MinimumLevel:Override:LogFlushMonitor")]
    [InlineData("Serilog:MinimumLevel", "7", "Serilog:MinimumLevel")]
    public void Anything_else_fails_naming_the_key(string key, string value, string named)
    {
        var e = Assert.Throws<InvalidDataException>(() => Logged(Section((key, value))));
        Assert.StartsWith(named + " ", e.Message, StringComparison.Ordinal);
        Assert.Contains("Log:File", e.Message, StringComparison.Ordinal);
    }
}
