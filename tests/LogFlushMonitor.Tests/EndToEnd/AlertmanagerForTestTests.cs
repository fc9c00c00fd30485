using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>The end-to-end stack's Alertmanager configuration is the shipped one with only URLs and timing changed.</summary>
public class AlertmanagerForTestTests
{
    private static readonly string Shipped = File.ReadAllText(DeployFiles.Path("deploy", "alertmanager", "alertmanager.yml"));

    [Fact]
    public void Only_receiver_urls_and_route_timing_differ_from_the_shipped_configuration()
    {
        var rewritten = AlertmanagerForTest.Rewrite(Shipped, "http://127.0.0.1:5000", 12);
        var before = Shipped.Split('\n');
        var after = rewritten.Split('\n');
        Assert.Equal(before.Length, after.Length);
        var changed = before.Zip(after).Where(p => p.First != p.Second).ToList();
        Assert.NotEmpty(changed);
        Assert.All(changed, p => Assert.True(AlertmanagerForTest.IsRewritable(p.First), $"changed a line it must keep: {p.First}"));
    }

    [Fact]
    public void Each_receiver_posts_to_its_own_path_and_timing_is_divided_by_the_factor()
    {
        var config = DeployFiles.ReadYaml(AlertmanagerForTest.Rewrite(Shipped, "http://127.0.0.1:5000/", 12));
        foreach (var receiver in DeployFiles.List(config["receivers"], "receivers"))
        {
            var name = DeployFiles.Text(receiver, "name");
            foreach (var webhook in DeployFiles.List(DeployFiles.At(receiver, "webhook_configs"), "webhook_configs"))
            {
                Assert.Equal($"http://127.0.0.1:5000/{name}", DeployFiles.Text(webhook, "url"));
                Assert.Equal("true", DeployFiles.Text(webhook, "send_resolved"));
            }
        }

        var shipped = DeployFiles.ReadYaml(Shipped);
        foreach (var key in new[] { "group_wait", "group_interval", "repeat_interval" })
        {
            var ms = RuleScaling.Milliseconds(DeployFiles.Text(shipped, "route", key)!);
            Assert.Equal(RuleScaling.Format((long)Math.Round(ms / 12.0)), DeployFiles.Text(config, "route", key));
        }
    }
}
