namespace LogFlushMonitor.Tests.Deploy;

/// <summary>deploy/alertmanager/alertmanager.yml is valid for the real Alertmanager and routes each severity the rules use.</summary>
public class AlertmanagerTests
{
    private static readonly string ConfigFile = DeployFiles.Path("deploy", "alertmanager", "alertmanager.yml");

    [SkippableFact]
    public async Task Alertmanager_configuration_passes_amtool_check_config()
    {
        var amtool = Tool.Require("amtool", "prometheus-alertmanager");
        var (code, stdout, stderr) = await Tool.RunAsync(amtool, ["check-config", ConfigFile]);
        Assert.True(code == 0, stdout + stderr);
        Assert.Contains("SUCCESS", stdout, StringComparison.Ordinal);
    }

    [SkippableTheory]
    [InlineData("critical", "page")]
    [InlineData("warning", "warning")]
    [InlineData("info", "warning")]
    public async Task Each_severity_the_rules_use_reaches_its_receiver(string severity, string receiver)
    {
        var amtool = Tool.Require("amtool", "prometheus-alertmanager");
        var used = AlertRuleConventionTests.Rules().Select(r => DeployFiles.Text(r, "labels", "severity")).Where(s => s is not null).Distinct();
        Assert.Contains(severity, used);

        var (code, stdout, stderr) = await Tool.RunAsync(
            amtool, ["config", "routes", "test", "--config.file=" + ConfigFile, "severity=" + severity, "alertname=Any", "sqlserver_instance_name=sql1"]);
        Assert.True(code == 0, stdout + stderr);
        Assert.Equal(receiver, stdout.Trim());
    }

    [Fact]
    public void Every_severity_in_the_rules_is_tested_above()
    {
        var used = AlertRuleConventionTests.Rules().Select(r => DeployFiles.Text(r, "labels", "severity")).Where(s => s is not null).ToHashSet();
        Assert.Subset(new HashSet<string?> { "critical", "warning", "info" }, used);
    }
}
