using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

public class ShardTests
{
    [Fact]
    public void Hash_is_FNV1a_of_the_lower_case_UTF8_name()
    {
        Assert.Equal(0x811C9DC5u, Shard.Hash(""));
        Assert.Equal(0xE40C292Cu, Shard.Hash("a"));
        Assert.Equal(Shard.Hash("prod-sql-01"), Shard.Hash("PROD-SQL-01"));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(7)]
    public void Every_instance_lands_on_exactly_one_shard_every_time(int n)
    {
        var names = Enumerable.Range(0, 200).Select(i => $"sql-{i:D3}.corp").Append("Ünïcödé-实例").ToList();
        foreach (var name in names)
        {
            var owners = Enumerable.Range(1, n).Where(i => new Shard(i, n).Owns(name)).ToList();
            Assert.Single(owners);
            Assert.Equal(owners, Enumerable.Range(1, n).Where(i => new Shard(i, n).Owns(name)).ToList());
        }

        if (n == 3)
        {
            // Spread: no shard is empty or holds nearly everything.
            Assert.All(Enumerable.Range(1, 3), i => Assert.InRange(names.Count(x => new Shard(i, 3).Owns(x)), 40, 100));
        }
    }

    [Fact]
    public void The_fleet_selects_by_shard()
    {
        var options = new SqlServerSourceOptions
        {
            Shard = "2/3",
            Instances = [.. Enumerable.Range(0, 30).Select(i => new SqlServerInstanceOptions { Name = $"i{i}", ConnectionString = "Server=x" })],
        };
        var fleet = new SqlServerFleet(options, new RecordingSink(), new RecordingSink(), new Core.Health.SourceHealth(), new Scripted.CapturingLogger());

        Assert.Equal(options.Instances.Where(i => Shard.Hash(i.Name) % 3 == 1).Select(i => i.Name), fleet.Selected.Select(i => i.Name));
    }

    [Theory]
    [InlineData("0/3")]
    [InlineData("4/3")]
    [InlineData("1/0")]
    [InlineData("a/b")]
    [InlineData("1-3")]
    [InlineData("-1/3")]
    public void Bad_shards_are_rejected(string text) => Assert.False(Shard.TryParse(text, out _, out _));

    [Fact]
    public void Empty_shard_means_all() => Assert.Equal(Shard.All, Shard.Parse(null));
}
