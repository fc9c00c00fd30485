using System.Globalization;
using LogFlushMonitor.Commands;
using LogFlushMonitor.Configuration;
using LogFlushMonitor.Hosting;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// Every key of the configuration schema, with values at and past the edges of its type (negative, zero and huge
/// durations and numbers, NaN, empty and control-character text, names that are not choices): <c>run</c> (and
/// <c>check</c> for Sources:SqlServer) either starts and stops cleanly, or exits 2 naming the key. Never exit 1, an
/// exception, or a stack trace (issue 20 item 6: settings that passed validation and then crashed the host).
/// </summary>
public class ConfigurationSchemaWalkTests
{
    private static readonly string ClosedPortConnection =
        $"Server=tcp:127.0.0.1,{TestPorts.Free()};User ID=x;Password={TestSecrets.Password};Encrypt=False;Connect Timeout=1";

    private static readonly string LogDirectory = Path.Combine(Path.GetTempPath(), "lfm-walk-" + Guid.NewGuid().ToString("N", CultureInfo.InvariantCulture));

    /// <summary>A two-line recording for the replay source.</summary>
    private static readonly string Recording = WriteRecording();

    /// <summary>A simulated source, a replay and one SQL Server instance (on a closed port), so every section is in use.</summary>
    private static readonly string[] Base =
    [
        "--Sources:Simulate:Scenario=mixed", $"--Sources:Replay:Path={Recording}", "--Http:Urls=http://127.0.0.1:0", "--Log:Level=Warning", "--Log:SummaryInterval=00:00:00",
        "--Sources:SqlServer:Instances:0:Name=walk", $"--Sources:SqlServer:Instances:0:ConnectionString={ClosedPortConnection}",
    ];


    public static TheoryData<string, string> Cases()
    {
        var data = new TheoryData<string, string>();
        foreach (var (key, node) in Keys(ConfigurationSchema.Root, ""))
        {
            foreach (var value in EdgeValues(key, node))
            {
                data.Add(key, value);
            }
        }

        return data;
    }

    public static TheoryData<string, string> SqlServerCases()
    {
        var data = new TheoryData<string, string>();
        foreach (var row in Cases())
        {
            if (((string)row[0]).StartsWith("Sources:SqlServer:", StringComparison.Ordinal))
            {
                data.Add((string)row[0], (string)row[1]);
            }
        }

        return data;
    }

    [Fact]
    public void The_walk_covers_every_key_of_the_schema()
    {
        var keys = Cases().Select(row => (string)row[0]).Distinct().ToList();
        Assert.Equal(Keys(ConfigurationSchema.Root, "").Count(), keys.Count);
        Assert.Contains("Sources:SqlServer:Instances:0:IncludeDatabases:0", keys);
        Assert.Contains("Log:RetainedFiles", keys);
        Assert.True(Cases().Count > 150, $"{Cases().Count} cases");
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Run_starts_cleanly_or_exits_2_naming_the_key(string key, string value)
    {
        using var error = new StringWriter();
        int code;
        try
        {
            code = await RunCommand.RunHostAsync([.. Base, $"--{key}={value}"], new Dictionary<string, string?>(), error, services => services.AddHostedService<StopSoonAfterStart>());
        }
        catch (Exception e)
        {
            Assert.Fail($"{key}={Shown(value)}: run threw {e}");
            return;
        }

        var text = error.ToString();
        Assert.DoesNotContain("   at ", text, StringComparison.Ordinal);
        Assert.True(code is 0 or 2, $"{key}={Shown(value)}: exit {code}: {text}");
        if (code == 2)
        {
            Assert.True(Names(text, key), $"{key}={Shown(value)}: exit 2 without naming the key: {text}");
        }
    }

    [Theory]
    [MemberData(nameof(SqlServerCases))]
    public async Task Check_checks_or_exits_2_naming_the_key(string key, string value)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        int code;
        try
        {
            code = await CheckCommand.RunAsync([.. Base, $"--{key}={value}"], output, error, CancellationToken.None);
        }
        catch (Exception e)
        {
            Assert.Fail($"{key}={Shown(value)}: check threw {e}");
            return;
        }

        var text = output + error.ToString();
        Assert.DoesNotContain("   at ", text, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, text, StringComparison.Ordinal);

        // 1: the configuration is fine and the instance (a closed port) cannot be reached.
        Assert.True(code is 1 or 2, $"{key}={Shown(value)}: exit {code}: {text}");
        if (code == 2)
        {
            Assert.True(Names(text, key), $"{key}={Shown(value)}: exit 2 without naming the key: {text}");
        }
    }

    /// <summary>The key, or its element (Instances:0) and its own name: "Sources:SqlServer:Instances:0: set exactly one of ConnectionString, ...".</summary>
    private static bool Names(string text, string key)
    {
        if (text.Contains(key, StringComparison.Ordinal))
        {
            return true;
        }

        var parent = key[..key.LastIndexOf(':')];
        var leaf = key[(key.LastIndexOf(':') + 1)..];
        return leaf.All(char.IsAsciiDigit)
            ? text.Contains(parent, StringComparison.Ordinal)
            : text.Contains(parent, StringComparison.Ordinal) && text.Contains(leaf, StringComparison.Ordinal);
    }

    private static string WriteRecording()
    {
        Directory.CreateDirectory(LogDirectory);
        var file = Path.Combine(LogDirectory, "replay.ndjson");
        const string Line = "{\"type\":\"flush\",\"t\":\"2026-11-22T12:00:00Z\",\"instance\":\"replayed\",\"db_id\":5,\"db\":\"shop\",\"write_size\":512}";
        File.WriteAllText(file, Line + "\n" + Line + "\n");
        return file;
    }

    private static string Shown(string value) => value.Length > 40 ? value[..40] + $"... ({value.Length} characters)" : LogEscaping.Escape(value);

    /// <summary>Every value key of the schema, list elements as element 0.</summary>
    private static IEnumerable<(string Key, SettingNode Node)> Keys(SettingNode node, string path)
    {
        if (node.Element is { } element)
        {
            foreach (var k in Keys(element, path + ":0"))
            {
                yield return k;
            }
        }
        else if (node.Children is { } children)
        {
            foreach (var (name, child) in children)
            {
                foreach (var k in Keys(child, path.Length == 0 ? name : path + ":" + name))
                {
                    yield return k;
                }
            }
        }
        else
        {
            yield return (path, node);
        }
    }

    private static IEnumerable<string> EdgeValues(string key, SettingNode node)
    {
        if (key == "Log:File")
        {
            // Files in a directory of the test's own, not in the working directory.
            return ["", Path.Combine(LogDirectory, "monitor.log"), Path.Combine(LogDirectory, "\u001b[2J\r\nname.log"), Path.Combine(LogDirectory, new string('x', 300))];
        }

        return node.Form switch
        {
            ValueForm.Duration => ["-00:00:01", "00:00:00", "00:00:00.0001", "10675199.02:48:05.4775807", "-10675199.02:48:05.4775808", "24855.00:00:00"],
            ValueForm.Integer => ["-1", "0", "1", "2147483647", "-2147483648"],
            ValueForm.Number => ["-1", "0", "NaN", "Infinity", "-Infinity", "1e308", "4.9e-324"],
            ValueForm.Boolean => ["true", "false"],
            ValueForm.Choice => ["Turbo", "-1", "1", ""],
            _ => ["", " ", "\u001b]0;title\u0007\r\nforged", new string('x', 5000), "x", "{x}"],
        };
    }

    /// <summary>Stops the host a moment after it started, so what a started service does with the value runs too.</summary>
    private sealed class StopSoonAfterStart(IHostApplicationLifetime lifetime) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken)
        {
            lifetime.ApplicationStarted.Register(() => _ = Task.Delay(300).ContinueWith(_ => lifetime.StopApplication(), TaskScheduler.Default));
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
