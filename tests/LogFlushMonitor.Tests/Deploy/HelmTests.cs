using System.Net;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Fleet;
using Microsoft.Extensions.Configuration;
using static LogFlushMonitor.Tests.Deploy.KubeObjects;

namespace LogFlushMonitor.Tests.Deploy;

/// <summary>
/// deploy/helm/logflushmonitor through the real `helm` (lint, package, template with the schema), the objects it
/// renders checked one by one and against the kustomize base, and the rendered configuration run by the real service.
/// </summary>
public partial class HelmTests
{
    private static readonly string Chart = DeployFiles.Path("deploy", "helm", "logflushmonitor");

    private static async Task<(int Code, string StdOut, string StdErr)> HelmAsync(params string[] args) =>
        await Tool.RunAsync(Tool.RequireHelm(), args);

    /// <summary>`helm template` of the chart with these arguments (values, release name); fails the test when helm fails.</summary>
    private static async Task<List<Dictionary<string, object?>>> RenderAsync(string release = "logflushmonitor", params string[] args)
    {
        var (code, stdout, stderr) = await HelmAsync(["template", release, Chart, "--namespace", "monitoring", .. args]);
        Assert.True(code == 0, "helm template: " + stderr + stdout);
        return [.. DeployFiles.ReadYamlDocuments(stdout).Where(d => d is not null).Select(d => DeployFiles.Map(d, "object"))];
    }

    private static Dictionary<string, Dictionary<string, object?>> Env(Dictionary<string, object?> container) =>
        DeployFiles.List(container["env"], "env").Select(e => DeployFiles.Map(e, "env")).ToDictionary(e => DeployFiles.Text(e, "name")!);

    private static string AppSettings(List<Dictionary<string, object?>> objects) =>
        DeployFiles.Text(Single(objects, "ConfigMap", "logflushmonitor-config"), "data", "appsettings.json")!;

    /// <summary>
    /// Passes a rendered appsettings.json through the service's own checks (no error, and no warning: every key the
    /// chart writes is one the service reads) and returns its Sources:SqlServer section, validated.
    /// </summary>
    private static SqlServerSourceOptions CheckedSqlServerOptions(string json)
    {
        var configuration = new ConfigurationBuilder().AddJsonStream(new MemoryStream(System.Text.Encoding.UTF8.GetBytes(json))).Build();
        var result = ConfigurationCheck.Inspect(configuration);
        Assert.Empty(result.Errors);
        Assert.Empty(result.Warnings);
        var options = configuration.GetSection(SqlServerOptionsValidator.Section).Get<SqlServerSourceOptions>()!;
        Assert.Empty(SqlServerOptionsValidator.Validate(options));
        return options;
    }

    [SkippableFact]
    public async Task The_chart_lints_strictly_and_packages()
    {
        var (code, stdout, stderr) = await HelmAsync("lint", "--strict", Chart);
        Assert.True(code == 0, "helm lint --strict: " + stdout + stderr);
        Assert.Contains("1 chart(s) linted, 0 chart(s) failed", stdout, StringComparison.Ordinal);

        var output = Directory.CreateTempSubdirectory("lfm-helm-");
        try
        {
            (code, stdout, stderr) = await HelmAsync("package", Chart, "--destination", output.FullName);
            Assert.True(code == 0, "helm package: " + stdout + stderr);
            var chartYaml = DeployFiles.ReadYaml(File.ReadAllText(Path.Combine(Chart, "Chart.yaml")));
            Assert.True(File.Exists(Path.Combine(output.FullName, $"logflushmonitor-{chartYaml["version"]}.tgz")), stdout);
        }
        finally
        {
            output.Delete(recursive: true);
        }
    }

    [SkippableFact]
    public async Task The_chart_renders_the_kustomize_base_workload_and_the_dashboard()
    {
        var objects = await RenderAsync("logflushmonitor", "--skip-tests");
        Assert.Equal(
            ["ConfigMap", "ConfigMap", "PrometheusRule", "Service", "ServiceMonitor", "StatefulSet"],
            objects.Select(o => (string)o["kind"]!).Order());
        Assert.All(objects, o => Assert.Equal("monitoring", DeployFiles.Text(o, "metadata", "namespace")));

        // The same pod as `kubectl kustomize deploy/kubernetes` renders, except for the names the two tools give.
        var kubectl = Tool.Require("kubectl", "kubectl");
        var (code, stdout, stderr) = await Tool.RunAsync(kubectl, ["kustomize", DeployFiles.Path("deploy", "kubernetes")]);
        Assert.True(code == 0, "kubectl kustomize: " + stderr);
        var kustomized = DeployFiles.ReadYamlDocuments(stdout).Select(d => DeployFiles.Map(d, "object")).ToList();
        var fromHelm = Single(objects, "StatefulSet");
        var fromKustomize = Single(kustomized, "StatefulSet");
        Assert.Equal(PodSpec(fromKustomize), PodSpec(fromHelm));
        Assert.Equal(DeployFiles.Text(fromKustomize, "spec", "replicas"), DeployFiles.Text(fromHelm, "spec", "replicas"));
        Assert.Equal("Parallel", DeployFiles.Text(fromHelm, "spec", "podManagementPolicy"));
        var kustomizedSettings = JsonNode.Parse(DeployFiles.Text(Single(kustomized, "ConfigMap"), "data", "appsettings.json")!);
        var renderedSettings = JsonNode.Parse(AppSettings(objects));
        Assert.True(JsonNode.DeepEquals(kustomizedSettings, renderedSettings), $"kustomize: {kustomizedSettings}\nhelm: {renderedSettings}");

        var dashboard = Single(objects, "ConfigMap", "logflushmonitor-dashboard");
        Assert.Equal("1", DeployFiles.Text(dashboard, "metadata", "labels", "grafana_dashboard"));
        Assert.Equal(
            JsonSerializer.Serialize(JsonDocument.Parse(File.ReadAllText(DeployFiles.Path("deploy", "grafana", "logflushmonitor.json"))).RootElement),
            JsonSerializer.Serialize(JsonDocument.Parse(DeployFiles.Text(dashboard, "data", "logflushmonitor.json")!).RootElement));

        var off = await RenderAsync("logflushmonitor", "--skip-tests", "--set", "dashboard.enabled=false", "--set", "serviceMonitor.enabled=false", "--set", "prometheusRule.enabled=false");
        Assert.Equal(["ConfigMap", "Service", "StatefulSet"], off.Select(o => (string)o["kind"]!).Order());
    }

    /// <summary>The pod template with its names made neutral: the ConfigMap's (kustomize adds a content hash) and the labels each tool sets.</summary>
    private static string PodSpec(Dictionary<string, object?> statefulSet)
    {
        var spec = DeployFiles.Map(DeployFiles.At(statefulSet, "spec", "template", "spec"), "pod spec");
        foreach (var volume in DeployFiles.List(spec["volumes"], "volumes").Select(v => DeployFiles.Map(v, "volume")))
        {
            if (DeployFiles.At(volume, "configMap") is Dictionary<string, object?> configMap)
            {
                configMap["name"] = "(config)";
            }
        }

        var container = Container(statefulSet);
        container.Remove("imagePullPolicy");
        container["image"] = "(image)";
        return Canonical(spec);
    }

    [SkippableFact]
    public async Task Files_the_chart_ships_are_the_repository_s_own()
    {
        // deploy/helm/sync-files.sh copies them; Helm reads nothing outside the chart.
        Assert.Equal(File.ReadAllBytes(DeployFiles.Path("deploy", "prometheus", "alerts.yml")), File.ReadAllBytes(Path.Combine(Chart, "files", "alerts.yml")));
        Assert.Equal(File.ReadAllBytes(DeployFiles.Path("deploy", "grafana", "logflushmonitor.json")), File.ReadAllBytes(Path.Combine(Chart, "files", "logflushmonitor.json")));

        var rule = Single(await RenderAsync(), "PrometheusRule");
        var shipped = DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "alerts.yml")))["groups"];
        Assert.Equal(Canonical(shipped), Canonical(DeployFiles.At(rule, "spec", "groups")));
    }

    [SkippableFact]
    public async Task The_scrape_job_is_the_one_LogFlushMonitorDown_watches_whatever_the_release_is_called()
    {
        var objects = await RenderAsync("prod", "--set", "serviceMonitor.labels.release=kube-prometheus-stack");
        var statefulSet = Single(objects, "StatefulSet");
        var service = Single(objects, "Service");
        var monitor = Single(objects, "ServiceMonitor");
        Assert.Equal("prod-logflushmonitor", DeployFiles.Text(statefulSet, "metadata", "name"));
        Assert.Equal(DeployFiles.Text(service, "metadata", "name"), DeployFiles.Text(statefulSet, "spec", "serviceName"));
        Assert.Equal("kube-prometheus-stack", DeployFiles.Text(monitor, "metadata", "labels", "release"));
        Assert.Equal("None", DeployFiles.Text(service, "spec", "clusterIP"));
        Assert.Equal("true", DeployFiles.Text(service, "spec", "publishNotReadyAddresses")); // unready pods are scraped and resolvable

        // The Prometheus Operator takes the job from the Service label that jobLabel names.
        var jobLabel = DeployFiles.Text(monitor, "spec", "jobLabel")!;
        var job = DeployFiles.Text(service, "metadata", "labels", jobLabel);
        var down = DeployFiles.List(DeployFiles.ReadYaml(File.ReadAllText(DeployFiles.Path("deploy", "prometheus", "alerts.yml")))["groups"], "groups")
            .SelectMany(g => DeployFiles.List(DeployFiles.At(g, "rules"), "rules"))
            .Single(r => DeployFiles.Text(r, "alert") == "LogFlushMonitorDown");
        Assert.Equal(JobInExpression().Match(DeployFiles.Text(down, "expr")!).Groups[1].Value, job);

        // The ServiceMonitor selects the Service, the Service the pods, and the pods mount the rendered ConfigMap.
        var selector = DeployFiles.Map(DeployFiles.At(monitor, "spec", "selector", "matchLabels"), "selector");
        var serviceLabels = DeployFiles.Map(DeployFiles.At(service, "metadata", "labels"), "labels");
        Assert.All(selector, kv => Assert.Equal(kv.Value, serviceLabels[kv.Key]));
        var podLabels = DeployFiles.Map(DeployFiles.At(statefulSet, "spec", "template", "metadata", "labels"), "labels");
        Assert.All(DeployFiles.Map(DeployFiles.At(service, "spec", "selector"), "selector"), kv => Assert.Equal(kv.Value, podLabels[kv.Key]));
        Assert.Equal(
            DeployFiles.Map(DeployFiles.At(statefulSet, "spec", "selector", "matchLabels"), "matchLabels").OrderBy(kv => kv.Key),
            DeployFiles.Map(DeployFiles.At(service, "spec", "selector"), "selector").OrderBy(kv => kv.Key));
        var volumes = DeployFiles.List(DeployFiles.At(statefulSet, "spec", "template", "spec", "volumes"), "volumes");
        Assert.Contains(volumes, v => DeployFiles.Text(v, "configMap", "name") == "prod-logflushmonitor-config");
        Single(objects, "ConfigMap", "prod-logflushmonitor-config");
    }

    [GeneratedRegex("job=\"([^\"]+)\"")]
    private static partial Regex JobInExpression();

    [SkippableFact]
    public async Task Shards_set_the_replicas_and_each_pod_runs_its_own_shard()
    {
        var statefulSet = Single(await RenderAsync("logflushmonitor", "--set", "shards=3"), "StatefulSet");
        Assert.Equal("3", DeployFiles.Text(statefulSet, "spec", "replicas"));
        var container = Container(statefulSet);
        Assert.Equal("3", DeployFiles.Text(Env(container)["SHARD_COUNT"], "value"));
        foreach (var (pod, expected) in new[] { ("logflushmonitor-0", "1/3"), ("logflushmonitor-2", "3/3") })
        {
            var arguments = await EntrypointArgumentsAsync(container, new Dictionary<string, string?> { ["POD_NAME"] = pod, ["SHARD_COUNT"] = "3" });
            Assert.Equal($"run --shard {expected}", arguments);
        }
    }

    [SkippableFact]
    public async Task Extra_environment_volumes_and_scheduling_reach_the_pod()
    {
        var statefulSet = Single(await RenderAsync("logflushmonitor",
            "--set-json", """extraEnv=[{"name":"OTEL_RESOURCE_ATTRIBUTES","value":"deployment.environment.name=prod"}]""",
            "--set-json", """extraVolumes=[{"name":"sql-ca","secret":{"secretName":"sql-ca"}}]""",
            "--set-json", """extraVolumeMounts=[{"name":"sql-ca","mountPath":"/etc/sql-ca","readOnly":true}]""",
            "--set", "nodeSelector.kubernetes\\.io/os=linux",
            "--set", "priorityClassName=monitoring",
            "--set", "image.digest=sha256:" + new string('a', 64)), "StatefulSet");
        var container = Container(statefulSet);
        Assert.Equal("deployment.environment.name=prod", DeployFiles.Text(Env(container)["OTEL_RESOURCE_ATTRIBUTES"], "value"));
        Assert.Equal("1", DeployFiles.Text(Env(container)["SHARD_COUNT"], "value")); // the chart's own variables stay
        Assert.Contains(DeployFiles.List(container["volumeMounts"], "volumeMounts"), m => DeployFiles.Text(m, "mountPath") == "/etc/sql-ca" && DeployFiles.Text(m, "name") == "sql-ca");
        var pod = DeployFiles.At(statefulSet, "spec", "template", "spec");
        Assert.Contains(DeployFiles.List(DeployFiles.At(pod, "volumes"), "volumes"), v => DeployFiles.Text(v, "secret", "secretName") == "sql-ca");
        Assert.Equal("linux", DeployFiles.Text(pod, "nodeSelector", "kubernetes.io/os"));
        Assert.Equal("monitoring", DeployFiles.Text(pod, "priorityClassName"));
        Assert.Equal("ghcr.io/logflushmonitor/logflushmonitor@sha256:" + new string('a', 64), DeployFiles.Text(container, "image"));
    }

    [SkippableFact]
    public async Task A_change_of_configuration_rolls_the_pods_and_nothing_else_does()
    {
        static string Checksum(List<Dictionary<string, object?>> objects) =>
            DeployFiles.Text(Single(objects, "StatefulSet"), "spec", "template", "metadata", "annotations", "checksum/config")!;

        var first = Checksum(await RenderAsync());
        Assert.Equal(first, Checksum(await RenderAsync()));
        Assert.Equal(first, Checksum(await RenderAsync("logflushmonitor", "--set", "podLabels.team=dba")));
        Assert.NotEqual(first, Checksum(await RenderAsync("logflushmonitor", "--set-json", """instances=[{"name":"sql1"},{"name":"sql3"}]""")));
        Assert.NotEqual(first, Checksum(await RenderAsync("logflushmonitor", "--set", "config.Sources.SqlServer.PollInterval=00:00:30")));
    }

    [SkippableTheory]
    [InlineData("--set", "shards=0", "at '/shards': minimum: got 0, want 1")]
    [InlineData("--set", "shard=2", "additional properties 'shard' not allowed")]
    [InlineData("--set", "image.pullPolicy=Sometimes", "at '/image/pullPolicy': value must be one of")]
    [InlineData("--set-json", "instances=[]", "at '/instances': minItems: got 0, want 1")]
    [InlineData("--set-json", """instances=[{"nmae":"sql1"}]""", "additional properties 'nmae' not allowed")]
    [InlineData("--set", "service.port=80", "at '/service/port': minimum")]
    [InlineData("--set", "serviceMonitor.interval=15", "at '/serviceMonitor/interval': got number, want string")]
    [InlineData("--set", "connections.existingSecret=", "at '/connections/existingSecret'")]
    [InlineData("--set-json", """instances=[{"name":"sql1"},{"name":"SQL1"}]""", "instances[1].name \"SQL1\" is already used by instances[0]")]
    [InlineData("--set-json", """instances=[{"name":"sql/a"}]""", "instances[0]: the Secret key \"sql/a\" is not one Kubernetes accepts")]
    [InlineData("--set-json", """instances=[{"name":"sql1","settings":{"ConnectionString":"Server=x"}}]""", "instances[0].settings.ConnectionString is set")]
    [InlineData("--set-json", """config={"Sources":{"SqlServer":{"Instances":[{"Name":"x"}]}}}""", "config.Sources.SqlServer.Instances is set")]
    [InlineData("--set-json", """config={"Sources":{"SqlServer":{"Shard":"1/2"}}}""", "config.Sources.SqlServer.Shard is set")]
    [InlineData("--set-json", """config={"Http":{"Urls":"http://0.0.0.0:80"}}""", "config.Http.Urls is set")]
    public async Task A_bad_value_fails_the_install_naming_it(string option, string value, string expected)
    {
        var (code, stdout, stderr) = await HelmAsync("template", "logflushmonitor", Chart, option, value);
        Assert.True(code != 0, "helm template accepted " + value + ": " + stdout);
        Assert.Contains(expected, stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("Server=x", stderr, StringComparison.Ordinal);
    }

    private static readonly string[] FleetValues =
    [
        "--set-json", """instances=[{"name":"sql-a"},{"name":"orders/eu","secretKey":"orders-eu","settings":{"Mode":"Histogram","IncludeDatabases":["orders"],"PollInterval":"00:00:30"}}]""",
        "--set-json", """config={"Sources":{"SqlServer":{"ConnectTimeout":"00:00:02","ReconnectDelay":"00:00:01"}},"Exporters":{"Prometheus":{"ScopeLabels":false}}}""",
    ];

    [SkippableFact]
    public async Task The_rendered_configuration_passes_the_service_s_own_checks()
    {
        var objects = await RenderAsync("logflushmonitor", FleetValues);
        var json = AppSettings(objects);
        var options = CheckedSqlServerOptions(json);
        Assert.Equal(["sql-a", "orders/eu"], options.Instances.Select(i => i.Name));
        Assert.Equal(["/var/run/secrets/logflushmonitor/sql-a", "/var/run/secrets/logflushmonitor/orders-eu"], options.Instances.Select(i => i.ConnectionStringFile));
        Assert.Equal(CollectionMode.Histogram, options.Instances[1].Mode);
        Assert.Equal(["orders"], options.Instances[1].IncludeDatabases);
        Assert.Equal(TimeSpan.FromSeconds(30), options.Instances[1].PollInterval);
        Assert.Equal(TimeSpan.FromSeconds(2), options.ConnectTimeout);
        Assert.DoesNotContain("Password", json, StringComparison.OrdinalIgnoreCase);

        // The Secret's keys are the files the configuration names.
        var statefulSet = Single(objects, "StatefulSet");
        var mount = DeployFiles.List(Container(statefulSet)["volumeMounts"], "volumeMounts").Single(m => DeployFiles.Text(m, "name") == "connections");
        Assert.Equal("/var/run/secrets/logflushmonitor", DeployFiles.Text(mount, "mountPath"));
        Assert.Equal("logflushmonitor-connections", DeployFiles.Text(
            DeployFiles.List(DeployFiles.At(statefulSet, "spec", "template", "spec", "volumes"), "volumes").Single(v => DeployFiles.Text(v, "name") == "connections"),
            "secret", "secretName"));
    }

    [SkippableFact]
    public async Task The_install_notes_give_the_secret_command_for_the_configured_keys()
    {
        var (code, stdout, stderr) = await HelmAsync(["install", "prod", Chart, "--namespace", "monitoring", "--dry-run=client", .. FleetValues]);
        Assert.True(code == 0, "helm install --dry-run=client: " + stderr + stdout);
        var notes = stdout[stdout.IndexOf("NOTES:", StringComparison.Ordinal)..];
        Assert.Contains("1 pod(s) watching 2 instance(s)", notes, StringComparison.Ordinal);
        Assert.Contains(
            "kubectl -n monitoring create secret generic logflushmonitor-connections --from-file=sql-a=./sql-a.txt --from-file=orders-eu=./orders-eu.txt",
            notes,
            StringComparison.Ordinal);
        Assert.Contains("helm test prod -n monitoring", notes, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task The_kube_prometheus_stack_example_renders_and_its_configuration_passes_the_service_s_checks()
    {
        var example = DeployFiles.Path("deploy", "helm", "examples", "kube-prometheus-stack.yaml");
        var (code, stdout, stderr) = await HelmAsync("lint", "--strict", Chart, "-f", example);
        Assert.True(code == 0, "helm lint --strict -f example: " + stdout + stderr);

        var objects = await RenderAsync("logflushmonitor", "-f", example);
        Assert.Equal("kube-prometheus-stack", DeployFiles.Text(Single(objects, "ServiceMonitor"), "metadata", "labels", "release"));
        Assert.Equal("kube-prometheus-stack", DeployFiles.Text(Single(objects, "PrometheusRule"), "metadata", "labels", "release"));
        Assert.Equal("2", DeployFiles.Text(Single(objects, "StatefulSet"), "spec", "replicas"));
        var options = CheckedSqlServerOptions(AppSettings(objects));
        Assert.Equal(["prod-orders", "prod-payments", "reporting"], options.Instances.Select(i => i.Name));
    }

    /// <summary>
    /// The pod as the kubelet would start it, short of the cluster: the rendered ConfigMap as the working directory,
    /// the Secret's files in the mount path, the container's environment, and the shard its entrypoint computes; the
    /// instances unreachable (a closed port). The service must start, serve /metrics and /healthz, keep /readyz at
    /// 503 naming both instances, and stop cleanly on SIGTERM.
    /// </summary>
    [SkippableFact]
    public async Task The_real_service_runs_from_what_the_chart_renders()
    {
        var root = Directory.CreateTempSubdirectory("lfm-helm-pod-");
        try
        {
            var port = TestPorts.Free();
            var secrets = Directory.CreateDirectory(Path.Combine(root.FullName, "secrets"));
            var objects = await RenderAsync("logflushmonitor", [.. FleetValues, "--set", $"connections.mountPath={secrets.FullName}", "--set", $"service.port={port}"]);
            var config = Directory.CreateDirectory(Path.Combine(root.FullName, "config"));
            File.WriteAllText(Path.Combine(config.FullName, "appsettings.json"), AppSettings(objects));
            var closed = TestPorts.Free();
            foreach (var key in new[] { "sql-a", "orders-eu" })
            {
                var file = Path.Combine(secrets.FullName, key);
                File.WriteAllText(file, $"Server=127.0.0.1,{closed};User ID=monitor;Password={TestSecrets.Password};Encrypt=false");
                if (!OperatingSystem.IsWindows())
                {
                    File.SetUnixFileMode(file, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead); // as the Secret's 0440: no warning for o+r
                }
            }

            var container = Container(Single(objects, "StatefulSet"));
            Assert.Equal("/etc/logflushmonitor", DeployFiles.Text(container, "workingDir"));
            var env = Env(container).Where(e => DeployFiles.Text(e.Value, "value") is not null).ToDictionary(e => e.Key, e => DeployFiles.Text(e.Value, "value")!);
            Assert.Equal($"http://0.0.0.0:{port}", env["LOGFLUSHMONITOR__Http__Urls"]);
            env["LOGFLUSHMONITOR__Http__Urls"] = $"http://127.0.0.1:{port}"; // servers in tests listen on the loopback only
            env["POD_NAME"] = "logflushmonitor-0";

            var arguments = await EntrypointArgumentsAsync(container, env.ToDictionary(e => e.Key, e => (string?)e.Value));
            Assert.Equal("run --shard 1/1", arguments);

            using var service = CliProcess.Start(arguments.Split(' '), env, config.FullName);
            using var http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}") };
            await Eventually.Until(async () => service.Process.HasExited || await Answers(http, "/healthz"), "/healthz", TimeSpan.FromSeconds(60));
            Assert.False(service.Process.HasExited, "the service exited: " + service.StdErr);

            var ready = await http.GetAsync("/readyz");
            Assert.Equal(HttpStatusCode.ServiceUnavailable, ready.StatusCode);
            var body = await ready.Content.ReadAsStringAsync();
            Assert.True(body.Contains("\"sql-a\"", StringComparison.Ordinal) && body.Contains("\"orders/eu\"", StringComparison.Ordinal), body);
            // Each instance's first connection attempt fails at once (a closed port): both are reported down.
            var metrics = "";
            await Eventually.Until(
                async () => MonitorDown("sql-a").IsMatch(metrics = await http.GetStringAsync("/metrics")) && MonitorDown("orders/eu").IsMatch(metrics),
                "sqlserver_monitor_up 0 for both instances",
                TimeSpan.FromSeconds(30));
            Assert.DoesNotContain("otel_scope_name", metrics, StringComparison.Ordinal); // config.Exporters.Prometheus.ScopeLabels=false reached the service

            service.Terminate();
            Assert.Equal(0, await service.WaitAsync(TimeSpan.FromSeconds(30)));
            Assert.DoesNotContain(TestSecrets.Password, service.StdOut + service.StdErr, StringComparison.Ordinal);
            // Log:Format=json from the container's environment: every line a JSON object, the failed connections among them.
            var lines = service.StdErr.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            Assert.NotEmpty(lines);
            Assert.All(lines, line => Assert.Equal(JsonValueKind.Object, JsonDocument.Parse(line).RootElement.ValueKind));
            Assert.Contains(lines, line => JsonDocument.Parse(line).RootElement.GetProperty("Level").GetString() == "Warning");
        }
        finally
        {
            root.Delete(recursive: true);
        }
    }

    private static Regex MonitorDown(string instance) =>
        new($"^sqlserver_monitor_up{{[^}}]*sqlserver_instance_name=\"{Regex.Escape(instance)}\"[^}}]*}} 0$", RegexOptions.Multiline);

    private static async Task<bool> Answers(HttpClient http, string path)
    {
        try
        {
            return (await http.GetAsync(path)).StatusCode == HttpStatusCode.OK;
        }
        catch (HttpRequestException)
        {
            return false;
        }
    }

    [SkippableFact]
    public async Task Helm_test_asks_every_pod_for_readiness_with_the_service_s_own_executable()
    {
        var objects = await RenderAsync("prod", "--set", "shards=2");
        var pod = Single(objects, "Pod");
        Assert.Equal("test", DeployFiles.Text(pod, "metadata", "annotations", "helm.sh/hook"));
        var container = DeployFiles.Map(Assert.Single(DeployFiles.List(DeployFiles.At(pod, "spec", "containers"), "containers")), "container");
        Assert.Equal(DeployFiles.Text(Container(Single(objects, "StatefulSet")), "image"), DeployFiles.Text(container, "image"));
        var script = (string)Assert.Single(DeployFiles.List(container["args"], "args"))!;

        // Run the script with the executable replaced by one that answers for pod 0 only: the test must fail, naming pod 1.
        var shell = Tool.Find("sh");
        Skip.If(shell is null, "no /bin/sh to run the test pod's script with");
        var fake = Path.Combine(Path.GetTempPath(), $"lfm-health-{Environment.ProcessId}.sh");
        File.WriteAllText(fake, "#!/bin/sh\ncase \"$3\" in *-0.*) exit 0;; *) exit 1;; esac\n");
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(fake, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
        try
        {
            var (code, stdout, _) = await Tool.RunAsync(shell!, ["-c", script.Replace("/app/logflushmonitor", fake, StringComparison.Ordinal)]);
            Assert.Equal(1, code);
            Assert.Contains("ready: http://prod-logflushmonitor-0.prod-logflushmonitor.monitoring.svc:9464/readyz", stdout, StringComparison.Ordinal);
            Assert.Contains("NOT ready: http://prod-logflushmonitor-1.prod-logflushmonitor.monitoring.svc:9464/readyz", stdout, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(fake);
        }
    }
}
