using System.Net.Sockets;

namespace LogFlushMonitor.Tests.Cli;

/// <summary>
/// Configuration mistakes and command-line typos (issue 8 items 1, 2 and 9): the whole command line in-process, through
/// the real executable where the environment or the program's name in help is the point.
/// </summary>
public class ConfigurationCliTests
{
    /// <summary>A .NET stack frame as the runtime prints it.</summary>
    private const string StackFrame = "   at ";

    [Theory]
    [InlineData("--Sources:Simulate:Speed=fast", "Sources:Simulate:Speed is 'fast', which is not a number")]
    [InlineData("--Sources:Simulate:Duration=5minutes", "Sources:Simulate:Duration is '5minutes', which is not a duration hh:mm:ss")]
    [InlineData("--Exporters:Prometheus:Enabled=yes", "Exporters:Prometheus:Enabled is 'yes', which is not true or false")]
    public async Task A_value_of_the_wrong_type_exits_2_naming_the_key_without_a_stack_trace(string setting, string message)
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--urls", $"http://127.0.0.1:{TestPorts.Free()}", setting);
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains(message, err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--simulate", "--simulate needs a scenario: mixed, autocommit,")]
    [InlineData("--urls", "--urls needs a listener address")]
    [InlineData("--replay", "--replay needs the path of a recording")]
    public async Task An_option_followed_by_another_option_instead_of_its_value_says_what_it_needs(string option, string message)
    {
        // Issue 35 item 7: `run --simulate --urls X` took "--urls" as the scenario and said "Unknown argument X".
        var (code, _, err) = await InProcessCli.RunAsync("run", option, "--shard", "0/1");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.StartsWith(message, err, StringComparison.Ordinal);
        Assert.Contains("it was followed by '--shard' instead.", err, StringComparison.Ordinal);
        Assert.DoesNotContain("Unknown argument", err, StringComparison.Ordinal);

        (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "--urls", "http://127.0.0.1:0");
        Assert.Equal(2, code);
        Assert.DoesNotContain("Unknown argument", err, StringComparison.Ordinal);
        Assert.Contains("--simulate needs a scenario", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_problem_of_an_instance_names_the_index_written_not_its_place_in_the_list()
    {
        // Issue 31 item 8: Instances:5 given alone was reported as Instances:0 (the binder makes a list of the keys).
        var (code, _, err) = await InProcessCli.RunAsync("check", "--Sources:SqlServer:Instances:5:Name=a");

        Assert.Equal(2, code);
        Assert.Contains("Sources:SqlServer:Instances:5: set exactly one of ConnectionString", err, StringComparison.Ordinal);
        Assert.DoesNotContain("Instances:0", err, StringComparison.Ordinal);

        // With a gap between two: each problem names its own key, and the duplicate names the first by its key too.
        (code, _, err) = await InProcessCli.RunAsync("check", "--Sources:SqlServer:Instances:2:Name=b", "--Sources:SqlServer:Instances:2:ConnectionString=Server=x",
            "--Sources:SqlServer:Instances:12:Name=b");

        Assert.Equal(2, code);
        Assert.Contains("Sources:SqlServer:Instances:12:Name 'b' is already used by Sources:SqlServer:Instances:2", err, StringComparison.Ordinal);
        Assert.Contains("Sources:SqlServer:Instances:12: set exactly one of ConnectionString", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_near_miss_key_is_named_with_the_key_it_abbreviates_before_the_error_it_causes()
    {
        // Issue 35 item 7: ConnectionStringEnvVariable is too far from ConnectionStringEnvironmentVariable by edits for a
        // suggestion, and the warning came after the error it explains ("set exactly one of ConnectionString, ...").
        var (code, _, err) = await InProcessCli.RunAsync("check", "--Sources:SqlServer:Instances:0:Name=sql1", "--Sources:SqlServer:Instances:0:ConnectionStringEnvVariable=LFM_SQL1");
        Assert.True(code == 2, $"exit {code}: {err}");
        var warning = err.IndexOf("Warning: Unknown configuration key Sources:SqlServer:Instances:0:ConnectionStringEnvVariable (ignored). Did you mean Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable?", StringComparison.Ordinal);
        var error = err.IndexOf("Invalid configuration:", StringComparison.Ordinal);
        Assert.True(warning >= 0 && error > warning, err);
    }

    [Theory]
    [InlineData("1,5", "--simulate", "--speed '1,5' is not a number. Give a number such as 1 or 2.5 (a dot, never a comma)")]
    [InlineData("fast", "--simulate", "--speed 'fast' is not a number.")]
    [InlineData("2", null, "--speed paces --simulate or --replay, and neither is given.")]
    public async Task A_speed_that_is_not_a_number_or_paces_nothing_exits_2_naming_the_option(string speed, string? source, string message)
    {
        // Before: System.CommandLine parsed --speed itself, "1,5" ran at 15x, "fast" printed a .NET type name, and a
        // --speed without --simulate or --replay was ignored.
        List<string> args = ["run", "--speed", speed, "--urls", $"http://127.0.0.1:{TestPorts.Free()}"];
        if (source is not null)
        {
            args.AddRange([source, "mixed"]);
        }

        var (code, _, err) = await InProcessCli.RunAsync([.. args]);
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains(message, err, StringComparison.Ordinal);
        Assert.DoesNotContain("System.", err, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Mode", "Turbo", "one of Auto, Stream, Histogram")]
    [InlineData("PollInterval", "soon", "a duration hh:mm:ss")]
    [InlineData("Azure", "maybe", "true or false")]
    public async Task A_mistyped_instance_value_makes_check_exit_2_naming_the_key(string key, string value, string expected)
    {
        var (code, _, err) = await InProcessCli.RunAsync("check", "--Sources:SqlServer:Instances:0:Name=prod1",
            $"--Sources:SqlServer:Instances:0:ConnectionString=Server=127.0.0.1,1;User ID=x;Password={TestSecrets.Password}", $"--Sources:SqlServer:Instances:0:{key}={value}");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains($"Sources:SqlServer:Instances:0:{key} is '{value}', which is not {expected}", err, StringComparison.Ordinal);
        Assert.DoesNotContain("Instances is empty", err, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, err, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("run", "inline", "abc")]
    [InlineData("run", "variable", "99999999999")]
    [InlineData("run", "file", "abc")]
    [InlineData("check", "inline", "99999999999")]
    [InlineData("check", "variable", "abc")]
    [InlineData("check", "file", "-5")]
    public async Task A_connection_string_value_sqlclient_refuses_exits_2_naming_the_instance_and_keyword_not_the_value(string command, string source, string timeout)
    {
        // Before: run started without that instance (no line, /readyz waiting for ever, FTL at shutdown); check crashed
        // with an unhandled FormatException quoting the value.
        var connectionString = $"Server=127.0.0.1,1;User ID=x;Password={TestSecrets.Password};Connect Timeout={timeout}";
        var secretFile = Path.GetTempFileName();
        await File.WriteAllTextAsync(secretFile, connectionString);
        try
        {
            var environment = new Dictionary<string, string> { ["LFM_BAD_TIMEOUT"] = connectionString };
            List<string> args = [command, "--Sources:SqlServer:Instances:0:Name=good", "--Sources:SqlServer:Instances:0:ConnectionString=Server=127.0.0.1,1;User ID=x", "--Sources:SqlServer:Instances:1:Name=prod1"];
            args.Add(source switch
            {
                "inline" => $"--Sources:SqlServer:Instances:1:ConnectionString={connectionString}",
                "variable" => "--Sources:SqlServer:Instances:1:ConnectionStringEnvironmentVariable=LFM_BAD_TIMEOUT",
                _ => $"--Sources:SqlServer:Instances:1:ConnectionStringFile={secretFile}",
            });
            if (command == "run")
            {
                args.AddRange(["--urls", $"http://127.0.0.1:{TestPorts.Free()}"]);
            }

            using var cli = CliProcess.Start(args, environment);
            var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));
            var output = cli.StdOut + cli.StdErr;
            Assert.True(code == 2, $"exit {code}: {output}");
            Assert.Contains("Sources:SqlServer:Instances:1: Instance 'prod1': the value of the connection string keyword 'connect timeout'", cli.StdErr, StringComparison.Ordinal);
            Assert.DoesNotContain(StackFrame, output, StringComparison.Ordinal);
            Assert.DoesNotContain(timeout, output, StringComparison.Ordinal);
            Assert.DoesNotContain(TestSecrets.Password, output, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(secretFile);
        }
    }

    [Fact]
    public async Task An_unknown_connection_string_keyword_exits_2_naming_it()
    {
        var (code, _, err) = await InProcessCli.RunAsync("check", "--Sources:SqlServer:Instances:0:Name=prod1",
            $"--Sources:SqlServer:Instances:0:ConnectionString=Server=127.0.0.1,1;User ID=x;Pasword={TestSecrets.Password}");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains("keyword 'pasword' (in ConnectionString) is not one Microsoft.Data.SqlClient knows", err, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_mistyped_instance_value_makes_run_exit_2_too()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--urls", $"http://127.0.0.1:{TestPorts.Free()}", "--Sources:SqlServer:Instances:0:Name=prod1",
            $"--Sources:SqlServer:Instances:0:ConnectionString=Server=127.0.0.1,1;User ID=x;Password={TestSecrets.Password}", "--Sources:SqlServer:Instances:0:Mode=Turbo");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains("Sources:SqlServer:Instances:0:Mode is 'Turbo'", err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Empty_http_urls_is_an_error_not_a_listener_on_port_5000()
    {
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--Http:Urls=");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains("Http:Urls is empty", err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_log_file_that_cannot_be_written_exits_2_naming_the_key()
    {
        var notADirectory = Path.GetTempFileName();
        try
        {
            var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--urls", $"http://127.0.0.1:{TestPorts.Free()}", $"--Log:File={notADirectory}/monitor.log");
            Assert.True(code == 2, $"exit {code}: {err}");
            Assert.Contains("Log:File names", err, StringComparison.Ordinal);
            Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(notADirectory);
        }
    }

    [Fact]
    public async Task An_unknown_key_is_reported_at_start_with_the_nearest_known_key()
    {
        // Scenaro is ignored, so no source is configured: the run stops, after the warning that explains why.
        var (code, _, err) = await InProcessCli.RunAsync("run", "--urls", $"http://127.0.0.1:{TestPorts.Free()}", "--Sources:Simulate:Scenaro=mixed", "--Sources:Simulate:Sped=2");
        Assert.True(code == 2, $"exit {code}: {err}");
        Assert.Contains("Unknown configuration key Sources:Simulate:Scenaro (ignored). Did you mean Sources:Simulate:Scenario?", err, StringComparison.Ordinal);
        Assert.Contains("Unknown configuration key Sources:Simulate:Sped (ignored). Did you mean Sources:Simulate:Speed?", err, StringComparison.Ordinal);
        Assert.Contains("No source is configured", err, StringComparison.Ordinal);
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_port_in_use_prints_one_message_without_a_stack_trace()
    {
        using var taken = new TcpListener(System.Net.IPAddress.Loopback, 0);
        taken.Start();
        var port = ((System.Net.IPEndPoint)taken.LocalEndpoint).Port;
        var (code, _, err) = await InProcessCli.RunAsync("run", "--simulate", "mixed", "--urls", $"http://127.0.0.1:{port}");
        Assert.Equal(2, code);
        Assert.Single(err.Split('\n'), l => l.Contains("address already in use", StringComparison.OrdinalIgnoreCase));
        Assert.DoesNotContain(StackFrame, err, StringComparison.Ordinal);
        Assert.DoesNotContain("Hosting failed to start", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_mistyped_command_gets_a_suggestion_and_one_usage_line()
    {
        var (code, _, err) = await InProcessCli.RunAsync("runn", "--simulate", "mixed");
        Assert.Equal(2, code);
        Assert.Contains("Unrecognized command 'runn'. Did you mean 'run'?", err, StringComparison.Ordinal);
        Assert.Contains("Usage: logflushmonitor <command>", err, StringComparison.Ordinal);
        Assert.DoesNotContain("logflushmonitor logflushmonitor", err, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_usage_error_in_a_command_names_the_program_once()
    {
        var (code, _, err) = await InProcessCli.RunAsync("analyze");
        Assert.Equal(2, code);
        Assert.Contains("See `logflushmonitor analyze --help`.", err, StringComparison.Ordinal);
        Assert.DoesNotContain("logflushmonitor logflushmonitor", err, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("run")]
    [InlineData("check")]
    [InlineData("analyze")]
    public async Task Help_shows_balanced_brackets_and_how_to_give_configuration_keys(string command)
    {
        // A process: the usage line names the program as it was started (System.CommandLine takes the executable's name),
        // which in-process would be the test host's.
        var (code, output, err) = await CliProcess.RunAsync(command, "--help");
        Assert.True(code == 0, err);
        var usage = output.Split('\n').SkipWhile(l => !l.StartsWith("Usage:", StringComparison.Ordinal)).Skip(1).First();
        Assert.StartsWith($"  logflushmonitor {command}", usage, StringComparison.Ordinal);
        Assert.Equal(usage.Count(c => c == '['), usage.Count(c => c == ']'));
        Assert.Equal(usage.Count(c => c == '<'), usage.Count(c => c == '>'));
        Assert.DoesNotContain("additional arguments", output, StringComparison.Ordinal);
        if (command != "analyze")
        {
            Assert.Contains("[--Section:Key=value ...]", usage, StringComparison.Ordinal);
        }
    }
}
