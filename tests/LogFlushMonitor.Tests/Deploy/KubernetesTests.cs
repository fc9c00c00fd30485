using System.Text.Json;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>deploy/kubernetes rendered by the real `kubectl kustomize`, and the objects it yields checked one by one.</summary>
public class KubernetesTests
{
    private const string SecretMount = "/var/run/secrets/logflushmonitor";

    private static async Task<List<Dictionary<string, object?>>> RenderAsync()
    {
        var kubectl = Tool.Require("kubectl", "kubectl");
        var (code, stdout, stderr) = await Tool.RunAsync(kubectl, ["kustomize", DeployFiles.Path("deploy", "kubernetes")]);
        Assert.True(code == 0, "kubectl kustomize: " + stderr + stdout);
        return [.. DeployFiles.ReadYamlDocuments(stdout).Select(d => DeployFiles.Map(d, "object"))];
    }

    [SkippableFact]
    public async Task Base_renders_the_workload_its_service_scrape_config_rules_and_configuration()
    {
        var objects = await RenderAsync();
        Assert.Equal(
            ["ConfigMap", "PrometheusRule", "Service", "ServiceMonitor", "StatefulSet"],
            objects.Select(o => (string)o["kind"]!).Order());

        var service = KubeObjects.Single(objects, "Service");
        Assert.Equal("None", DeployFiles.Text(service, "spec", "clusterIP"));
        // An unready pod (an instance down) is still discovered and scraped: its sqlserver_monitor_up 0 is the signal.
        Assert.Equal("true", DeployFiles.Text(service, "spec", "publishNotReadyAddresses"));
        Assert.Equal(DeployFiles.Text(service, "metadata", "name"), DeployFiles.Text(KubeObjects.Single(objects, "StatefulSet"), "spec", "serviceName"));
        var monitor = KubeObjects.Single(objects, "ServiceMonitor");
        Assert.Equal(
            DeployFiles.Text(service, "metadata", "labels", "app.kubernetes.io/name"),
            DeployFiles.Text(monitor, "spec", "selector", "matchLabels", "app.kubernetes.io/name"));
        var endpoint = DeployFiles.List(DeployFiles.At(monitor, "spec", "endpoints"), "endpoints")[0];
        Assert.Equal("metrics", DeployFiles.Text(endpoint, "port"));
        Assert.Equal("/metrics", DeployFiles.Text(endpoint, "path"));
        // The Prometheus Operator takes the job from the Service label jobLabel names (else the Service's name):
        // LogFlushMonitorDown expects job="logflushmonitor", also when an overlay renames the Service.
        Assert.Equal("logflushmonitor", DeployFiles.Text(service, "metadata", "labels", DeployFiles.Text(monitor, "spec", "jobLabel")!));
    }

    [SkippableFact]
    public async Task An_overlay_that_renames_everything_keeps_the_job_the_alert_watches()
    {
        var kubectl = Tool.Require("kubectl", "kubectl");
        var overlay = Directory.CreateTempSubdirectory("lfm-overlay-");
        try
        {
            var kustomization = "namePrefix: prod-\nresources:\n  - " + Path.GetRelativePath(overlay.FullName, DeployFiles.Path("deploy", "kubernetes")).Replace('\\', '/') + "\n";
            File.WriteAllText(Path.Combine(overlay.FullName, "kustomization.yaml"), kustomization);
            var (code, stdout, stderr) = await Tool.RunAsync(kubectl, ["kustomize", overlay.FullName]);
            Assert.True(code == 0, "kubectl kustomize: " + stderr + stdout);
            var objects = DeployFiles.ReadYamlDocuments(stdout).Select(d => DeployFiles.Map(d, "object")).ToList();
            var service = KubeObjects.Single(objects, "Service");
            var monitor = KubeObjects.Single(objects, "ServiceMonitor");
            Assert.Equal("prod-logflushmonitor", DeployFiles.Text(service, "metadata", "name"));
            Assert.Equal("prod-logflushmonitor", DeployFiles.Text(KubeObjects.Single(objects, "StatefulSet"), "spec", "serviceName"));
            Assert.Equal("logflushmonitor", DeployFiles.Text(service, "metadata", "labels", DeployFiles.Text(monitor, "spec", "jobLabel")!));
        }
        finally
        {
            overlay.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task Pods_are_probed_unprivileged_read_only_and_bounded()
    {
        var statefulSet = KubeObjects.Single(await RenderAsync(), "StatefulSet");
        var container = KubeObjects.Container(statefulSet);
        Assert.Equal("/healthz", DeployFiles.Text(container, "livenessProbe", "httpGet", "path"));
        Assert.Equal("/readyz", DeployFiles.Text(container, "readinessProbe", "httpGet", "path"));
        Assert.Equal("metrics", DeployFiles.Text(container, "readinessProbe", "httpGet", "port"));
        var ports = DeployFiles.List(container["ports"], "ports");
        Assert.Contains(ports, p => DeployFiles.Text(p, "name") == "metrics" && DeployFiles.Text(p, "containerPort") == "9464");

        Assert.Equal("true", DeployFiles.Text(statefulSet, "spec", "template", "spec", "securityContext", "runAsNonRoot"));
        Assert.Equal("true", DeployFiles.Text(container, "securityContext", "readOnlyRootFilesystem"));
        Assert.Equal("false", DeployFiles.Text(container, "securityContext", "allowPrivilegeEscalation"));
        Assert.Equal(["ALL"], DeployFiles.List(DeployFiles.At(container, "securityContext", "capabilities", "drop"), "drop"));
        Assert.NotNull(DeployFiles.Text(container, "resources", "requests", "cpu"));
        Assert.NotNull(DeployFiles.Text(container, "resources", "requests", "memory"));
        Assert.NotNull(DeployFiles.Text(container, "resources", "limits", "memory"));

        // The only writable place is an emptyDir on /tmp.
        var mounts = DeployFiles.List(container["volumeMounts"], "volumeMounts").Select(m => DeployFiles.Map(m, "mount")).ToList();
        Assert.All(mounts.Where(m => DeployFiles.Text(m, "mountPath") != "/tmp"), m => Assert.Equal("true", DeployFiles.Text(m, "readOnly")));
    }

    [SkippableFact]
    public async Task Connection_strings_come_from_a_secret_as_files_and_instances_from_the_config_map()
    {
        var objects = await RenderAsync();
        var statefulSet = KubeObjects.Single(objects, "StatefulSet");
        var container = KubeObjects.Container(statefulSet);
        var volumes = DeployFiles.List(DeployFiles.At(statefulSet, "spec", "template", "spec", "volumes"), "volumes")
            .ToDictionary(v => DeployFiles.Text(v, "name")!, v => v);
        var mounts = DeployFiles.List(container["volumeMounts"], "volumeMounts").ToDictionary(m => DeployFiles.Text(m, "mountPath")!, m => DeployFiles.Text(m, "name")!);

        var secretVolume = volumes[mounts[SecretMount]];
        Assert.Equal("logflushmonitor-connections", DeployFiles.Text(secretVolume, "secret", "secretName"));

        // The ConfigMap the pod mounts is the generated one (its name carries the content hash), in the working directory.
        var configMap = KubeObjects.Single(objects, "ConfigMap");
        var workingDirectory = DeployFiles.Text(container, "workingDir")!;
        Assert.Equal(DeployFiles.Text(configMap, "metadata", "name"), DeployFiles.Text(volumes[mounts[workingDirectory]], "configMap", "name"));
        using var settings = JsonDocument.Parse(DeployFiles.Text(configMap, "data", "appsettings.json")!);
        var instances = settings.RootElement.GetProperty("Sources").GetProperty("SqlServer").GetProperty("Instances").EnumerateArray().ToList();
        Assert.NotEmpty(instances);
        Assert.All(instances, i => Assert.Equal($"{SecretMount}/{i.GetProperty("Name").GetString()}", i.GetProperty("ConnectionStringFile").GetString()));
        Assert.DoesNotContain("Password", settings.RootElement.GetRawText(), StringComparison.OrdinalIgnoreCase);
    }

    [SkippableFact]
    public async Task Each_pod_ordinal_becomes_its_shard_and_the_shard_count_matches_the_replicas()
    {
        var statefulSet = KubeObjects.Single(await RenderAsync(), "StatefulSet");
        var container = KubeObjects.Container(statefulSet);
        var env = DeployFiles.List(container["env"], "env").ToDictionary(e => DeployFiles.Text(e, "name")!, e => e);
        Assert.Equal("metadata.name", DeployFiles.Text(env["POD_NAME"], "valueFrom", "fieldRef", "fieldPath"));
        Assert.Equal(DeployFiles.Text(statefulSet, "spec", "replicas"), DeployFiles.Text(env["SHARD_COUNT"], "value"));

        // Pod logflushmonitor-2 of 3 runs shard 3/3.
        foreach (var (pod, expected) in new[] { ("logflushmonitor-0", "1/3"), ("logflushmonitor-2", "3/3"), ("my-monitor-11", "12/12") })
        {
            var arguments = await KubeObjects.EntrypointArgumentsAsync(container, new Dictionary<string, string?> { ["POD_NAME"] = pod, ["SHARD_COUNT"] = expected.Split('/')[1] });
            Assert.Equal($"run --shard {expected}", arguments);
        }
    }

    [SkippableFact]
    public async Task PrometheusRule_carries_exactly_the_rules_of_alerts_yml()
    {
        var rule = KubeObjects.Single(await RenderAsync(), "PrometheusRule");
        var shipped = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "alerts.yml")))["groups"];
        var wrapped = DeployFiles.At(rule, "spec", "groups");
        Assert.Equal(KubeObjects.Canonical(shipped), KubeObjects.Canonical(wrapped));
    }
}
