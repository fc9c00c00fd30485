using LogFlushMonitor.Hosting;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// Issue 30 item 6: a password kept in appsettings.json got no warning, though the README keeps connection strings out of
/// the file. The warning names the key and the file, never the value; the same connection string from the command line,
/// an environment variable or a ConnectionStringFile is not warned about, nor one without a password.
/// </summary>
public sealed class PasswordInFileTests : IDisposable
{
    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("lfm-password-");

    public void Dispose() => _folder.Delete(recursive: true);

    private string Settings(string connectionString)
    {
        var path = Path.Combine(_folder.FullName, "appsettings.json");
        File.WriteAllText(path, $$"""
            { "Sources": { "SqlServer": { "Instances": [
              { "Name": "prod1", "ConnectionString": "{{connectionString}}" } ] } } }
            """);
        return path;
    }

    private static ConfigurationCheck.Result Check(string file, params string[] args) =>
        ConfigurationCheck.Inspect(new ConfigurationBuilder().AddJsonFile(file).AddCommandLine(args).Build());

    [Theory]
    [InlineData("Password")]
    [InlineData("PWD")]
    [InlineData("password")]
    public void A_password_in_the_file_is_a_warning_naming_key_and_file_not_the_value(string keyword)
    {
        var file = Settings($"Server=sql1;User ID=monitor;{keyword}={TestSecrets.Password};Encrypt=Mandatory");

        var warning = Assert.Single(Check(file).Warnings);

        Assert.StartsWith($"Sources:SqlServer:Instances:0:ConnectionString in {file} holds a password (not shown).", warning, StringComparison.Ordinal);
        Assert.Contains("Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable", warning, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, warning, StringComparison.Ordinal);
    }

    [Fact]
    public void A_connection_string_without_a_password_or_given_elsewhere_is_not_warned_about()
    {
        Assert.Empty(Check(Settings("Server=sql1;Integrated Security=SSPI;Encrypt=Mandatory")).Warnings);
        // The command line overrides the file: the value used is not the file's.
        var file = Settings($"Server=sql1;User ID=monitor;Password={TestSecrets.Password}");
        Assert.Empty(Check(file, $"--Sources:SqlServer:Instances:0:ConnectionString=Server=sql1;User ID=monitor;Password={TestSecrets.Password}").Warnings);
    }

    [Fact]
    public async Task Check_says_it_on_stderr_and_the_run_goes_on()
    {
        Settings($"Server=127.0.0.1,1;User ID=monitor;Password={TestSecrets.Password};Encrypt=False;Connect Timeout=1");

        using var cli = CliProcess.Start(["check"], workingDirectory: _folder.FullName);
        var code = await cli.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(1, code); // nothing answers on port 1: a problem, not a configuration error
        Assert.Contains("Sources:SqlServer:Instances:0:ConnectionString in ", cli.StdErr + cli.StdOut, StringComparison.Ordinal);
        Assert.Contains("holds a password (not shown)", cli.StdErr + cli.StdOut, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, cli.StdErr + cli.StdOut, StringComparison.Ordinal);
    }
}
