using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// Azure's resource governance, answered in the views' documented shapes (Microsoft's pages of
/// sys.dm_user_db_resource_governance, sys.dm_db_resource_stats, sys.dm_hs_database_log_rate; for Managed Instance
/// sys.dm_instance_resource_governance as influxdata/telegraf's queries read it, and sys.server_resource_stats): on SQL
/// Database (engine edition 5) the database's cap, tier and newest log write percentage, and on Hyperscale the components
/// that set the log rate; on Managed Instance (8) the instance's cap and sku. A SQL Server has none of these views: it
/// answers error 208 as a server does for an object it does not have.
/// </summary>
public sealed partial class ScriptedSqlServer
{
    /// <summary>DATABASEPROPERTYEX(DB_NAME(), 'Edition') on SQL Database (GeneralPurpose, BusinessCritical, Hyperscale, ...).</summary>
    public string AzureTier { get; set; } = "GeneralPurpose";

    /// <summary>slo_name of sys.dm_user_db_resource_governance.</summary>
    public string AzureServiceObjective { get; set; } = "SQLDB_GP_Gen5_2";

    /// <summary>primary_max_log_rate, bytes per second (9.375 MB/s: one of the figures Microsoft's pages gave for 2 vCores).</summary>
    public long AzureMaxLogRate { get; set; } = 9_830_400;

    /// <summary>avg_log_write_percent of the newest sys.dm_db_resource_stats row (decimal(5,2)); null: the view has no row yet.</summary>
    public decimal? AzureLogWritePercent { get; set; } = 37.50m;

    /// <summary>
    /// Hyperscale's components that set the log rate (sys.dm_hs_database_log_rate): by default the primary alone, at the
    /// database's 100 MiB/s, nothing to catch up.
    /// </summary>
    public List<(string Role, long CurrentMaxLogRate, long CatchupRate, long CatchupBytes)> HyperscaleComponents { get; } = [("Primary", 104_857_600, 0, 0)];

    /// <summary>
    /// Answer sys.dm_hs_database_log_rate under the column names its page's examples use (current_max_log_rate_bps,
    /// catchup_rate_bps, catchup_distance_bytes) instead of those of its table (current_max_log_rate, catchup_rate,
    /// catchup_bytes): the page gives both.
    /// </summary>
    public bool HyperscaleExampleColumnNames { get; set; }

    /// <summary>Managed Instance: sku, hardware_generation and virtual_core_count of the newest sys.server_resource_stats row.</summary>
    public (string Sku, string Hardware, int VCores) ManagedInstanceSku { get; set; } = ("General Purpose", "Gen5", 8);

    /// <summary>Managed Instance: instance_max_log_rate, bytes per second.</summary>
    public long ManagedInstanceMaxLogRate { get; set; } = 50_331_648;

    private void AddGovernanceRules()
    {
        Server.When("sys.dm_user_db_resource_governance", r => EngineEdition != 5 ? NoSuchObject(r, "sys.dm_user_db_resource_governance") : Begin(r).ResultSet(
            [TdsColumn.NVarChar("DatabaseName"), TdsColumn.NVarChar("Tier"), TdsColumn.NVarChar("ServiceObjective"), TdsColumn.BigInt("MaxLogRateBytesPerSecond"), TdsColumn.Float("LogWritePercent")],
            [[CurrentDatabase, AzureTier, AzureServiceObjective, AzureMaxLogRate, AzureLogWritePercent is { } p ? (double)p : null]]));
        Server.When("sys.dm_hs_database_log_rate", r => EngineEdition != 5 ? NoSuchObject(r, "sys.dm_hs_database_log_rate")
            : !string.Equals(AzureTier, "Hyperscale", StringComparison.OrdinalIgnoreCase) ? Begin(r).ResultSet(HyperscaleColumns(), []) // "applies to Hyperscale only"
            : Begin(r).ResultSet(HyperscaleColumns(), [.. HyperscaleComponents.Select((c, i) => new object?[]
            {
                Database(CurrentDatabase).Id, "6E2C3B8A-0D3F-4A4B-9C1E-2F3A4B5C6D7E", c.Role == "Storage" ? 1 : null, c.CurrentMaxLogRate,
                new Guid(i, 0x1bad, 0x4c0f, 0x8e, 0x1a, 0, 0, 0, 0, 0, (byte)i).ToString().ToUpperInvariant(), RoleNumber(c.Role), c.Role, c.CatchupRate, c.CatchupBytes,
                new DateTime(2026, 11, 1, 6, 0, 0, DateTimeKind.Unspecified),
            })]));
        Server.When("sys.dm_instance_resource_governance", r => EngineEdition != 8 ? NoSuchObject(r, "sys.dm_instance_resource_governance") : Begin(r).ResultSet(
            [TdsColumn.NVarChar("Tier"), TdsColumn.NVarChar("ServiceObjective"), TdsColumn.BigInt("MaxLogRateBytesPerSecond")],
            [[ManagedInstanceSku.Sku, $"{ManagedInstanceSku.Sku} {ManagedInstanceSku.Hardware} {ManagedInstanceSku.VCores} vCores", ManagedInstanceMaxLogRate]]));
    }

    /// <summary>
    /// The function's columns as its page's table names them (or, <see cref="HyperscaleExampleColumnNames"/>, its examples).
    /// replica_id and component_id are uniqueidentifier on a server; this test server sends them as text (the monitor reads
    /// neither), role smallint as an int.
    /// </summary>
    private TdsColumn[] HyperscaleColumns() =>
    [
        TdsColumn.Int("database_id"), TdsColumn.NVarChar("replica_id"), TdsColumn.Int("file_id"),
        TdsColumn.BigInt(HyperscaleExampleColumnNames ? "current_max_log_rate_bps" : "current_max_log_rate"), TdsColumn.NVarChar("component_id"),
        TdsColumn.Int("role"), TdsColumn.NVarChar("role_desc"),
        TdsColumn.BigInt(HyperscaleExampleColumnNames ? "catchup_rate_bps" : "catchup_rate"), TdsColumn.BigInt(HyperscaleExampleColumnNames ? "catchup_distance_bytes" : "catchup_bytes"),
        TdsColumn.DateTime2("last_reported_time"),
    ];

    /// <summary>The role numbers of the page: Storage 1, Primary 2, Replica 4, LocalDestage 5, Destage 6, GeoReplica 10, ...</summary>
    private static int RoleNumber(string role) => role switch
    {
        "Storage" => 1,
        "Primary" => 2,
        "Replica" => 4,
        "LocalDestage" => 5,
        "Destage" => 6,
        "GeoReplica" => 10,
        "StorageCheckpoint" => 12,
        "MigrationTarget" => 14,
        _ => 0,
    };

    /// <summary>What a server answers for a view it does not have.</summary>
    private TdsResponse NoSuchObject(TdsRequest request, string name) => Begin(request).Error(208, $"Invalid object name '{name}'.");
}
