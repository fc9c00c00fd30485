using System.Text.RegularExpressions;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Workload;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.Commands;

public partial class WorkloadScenarioNamesTests
{
    [Fact]
    public void The_compose_loop_cycles_exactly_the_workload_scenarios()
    {
        var loop = File.ReadAllText(DeployFiles.Path("deploy", "compose", "workload-loop.sh"));
        var list = DefaultScenarios().Match(loop);

        Assert.True(list.Success, "workload-loop.sh has no WORKLOAD_SCENARIOS default");
        Assert.Equal(WorkloadScenarios.Names, list.Groups[1].Value.Split(' ', StringSplitOptions.RemoveEmptyEntries));
    }

    [Fact]
    public void Workload_scenarios_that_the_simulator_models_share_its_names()
    {
        Assert.Subset(SimulationScenarios.Names.ToHashSet(), new HashSet<string> { "autocommit", "big-transaction", "delayed-durability" });
        Assert.Subset(WorkloadScenarios.Names.ToHashSet(), new HashSet<string> { "autocommit", "big-transaction", "delayed-durability" });
    }

    [Fact]
    public void Every_workload_scenario_is_documented()
    {
        var doc = File.ReadAllText(DeployFiles.Path("docs", "workload.md"));

        Assert.All(WorkloadScenarios.Names, name => Assert.Contains($"| `{name}` |", doc, StringComparison.Ordinal));
    }

    [GeneratedRegex(@"WORKLOAD_SCENARIOS:-([a-z -]+)\}")]
    private static partial Regex DefaultScenarios();
}
