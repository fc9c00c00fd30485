using System.Text;
using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

/// <summary>
/// The statements of <c>logflushmonitor workload</c>: CREATE/ALTER/DROP DATABASE change the scripted catalog (the
/// name is read back from its bracket quoting, so a wrongly quoted name lands on the wrong database), the workload's
/// extended property marks a database, INSERTs report their rows, and <see cref="FailNext"/> answers chosen statements
/// with an error such as deadlock 1205. Runs right after the fault rule, so cuts and hangs apply here too.
/// </summary>
public sealed partial class ScriptedSqlServer
{
    private readonly HashSet<string> _markedDatabases = new(StringComparer.OrdinalIgnoreCase);
    private (int Count, int Number, string Fragment) _failures;
    private long _rowsInserted;

    /// <summary>Rows the workload's INSERTs reported so far.</summary>
    public long RowsInserted => Interlocked.Read(ref _rowsInserted);

    /// <summary>Whether <paramref name="database"/> carries the workload's extended property.</summary>
    public bool IsMarkedAsWorkload(string database)
    {
        lock (_gate)
        {
            return _markedDatabases.Contains(database);
        }
    }

    /// <summary>The next <paramref name="count"/> statements containing <paramref name="fragment"/> fail with error <paramref name="number"/>.</summary>
    public void FailNext(int count, int number, string fragment)
    {
        lock (_gate)
        {
            _failures = (count, number, fragment);
        }
    }

    /// <summary>
    /// Reads the bracket-quoted name that starts at <paramref name="start"/> (']]' is one ']'); returns it and the
    /// text after its closing bracket. Throws on a name that is not quoted, as a server would fail on bad syntax.
    /// </summary>
    public static (string Name, string After) ReadQuotedName(string text, int start)
    {
        if (start >= text.Length || text[start] != '[')
        {
            throw new FormatException($"No [quoted] name at {start} in: {text}");
        }

        var name = new StringBuilder();
        for (var i = start + 1; i < text.Length; i++)
        {
            if (text[i] != ']')
            {
                name.Append(text[i]);
            }
            else if (i + 1 < text.Length && text[i + 1] == ']')
            {
                name.Append(']');
                i++;
            }
            else
            {
                return (name.ToString(), text[(i + 1)..]);
            }
        }

        throw new FormatException($"Unterminated [quoted] name in: {text}");
    }

    partial void AddWorkloadRules() => Server.Handle(WorkloadRule);

    private TdsResponse? WorkloadRule(TdsRequest r)
    {
        var t = r.Text;
        lock (_gate)
        {
            if (_failures.Count > 0 && t.Contains(_failures.Fragment, StringComparison.OrdinalIgnoreCase))
            {
                _failures.Count--;
                var message = _failures.Number == 1205
                    ? "Transaction (Process ID 61) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction."
                    : $"Scripted error {_failures.Number}.";
                return Begin(r).Error(_failures.Number, message, state: 1, severity: 13);
            }
        }

        if (t.Contains("DB_ID(@database)", StringComparison.Ordinal))
        {
            var name = (string)r.Parameter("database")!;
            int? id;
            lock (_gate)
            {
                id = _databases.FirstOrDefault(d => string.Equals(d.Name, name, StringComparison.OrdinalIgnoreCase))?.Id;
            }

            return Begin(r).ResultSet([TdsColumn.Int("DatabaseId")], [[id]]);
        }

        if (t.StartsWith("CREATE DATABASE ", StringComparison.Ordinal))
        {
            var (name, rest) = ReadQuotedName(t, "CREATE DATABASE ".Length);
            if (rest.Length > 0)
            {
                return Begin(r).Error(102, $"Incorrect syntax near '{rest}'.");
            }

            lock (_gate)
            {
                if (_databases.Any(d => string.Equals(d.Name, name, StringComparison.OrdinalIgnoreCase)))
                {
                    return Begin(r).Error(1801, $"Database '{name}' already exists. Choose a different database name.");
                }
            }

            AddDatabase(name);
            return Begin(r);
        }

        if (t.StartsWith("ALTER DATABASE ", StringComparison.Ordinal))
        {
            var (name, rest) = ReadQuotedName(t, "ALTER DATABASE ".Length);
            const string Drop = " SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE ";
            if (rest.StartsWith(Drop, StringComparison.Ordinal))
            {
                var (dropped, end) = ReadQuotedName(rest, Drop.Length);
                if (dropped != name || end != ";")
                {
                    return Begin(r).Error(102, $"Incorrect syntax near '{end}'.");
                }

                DropDatabase(name);
                lock (_gate)
                {
                    _markedDatabases.Remove(name);
                }

                return Begin(r);
            }

            var db = Database(name);
            lock (_gate)
            {
                switch (rest)
                {
                    case " SET RECOVERY SIMPLE":
                        db.RecoveryModel = "SIMPLE";
                        break;
                    case " SET DELAYED_DURABILITY = FORCED" or " SET DELAYED_DURABILITY = DISABLED":
                        db.DelayedDurability = rest[(rest.LastIndexOf(' ') + 1)..];
                        break;
                    default:
                        return Begin(r).Error(102, $"Incorrect syntax near '{rest}'.");
                }
            }

            return Begin(r);
        }

        if (t.Contains("sys.extended_properties", StringComparison.Ordinal))
        {
            lock (_gate)
            {
                return Begin(r).ResultSet([TdsColumn.Int("")], [[_markedDatabases.Contains(r.Login.Database) ? 1 : 0]]);
            }
        }

        if (t.Contains("sp_addextendedproperty", StringComparison.Ordinal))
        {
            lock (_gate)
            {
                _markedDatabases.Add(r.Login.Database);
            }

            return Begin(r);
        }

        if (t.Contains("CREATE TABLE dbo.WorkloadRows", StringComparison.Ordinal) || t.Contains("TRUNCATE TABLE dbo.WorkloadRows", StringComparison.Ordinal))
        {
            return Begin(r);
        }

        if (t.StartsWith("INSERT dbo.Workload", StringComparison.Ordinal))
        {
            var rows = r.Parameters.ContainsKey("@rows") ? Convert.ToInt64(r.Parameter("rows"), System.Globalization.CultureInfo.InvariantCulture) : 1;
            Interlocked.Add(ref _rowsInserted, rows);
            return Begin(r).RowsAffected(rows);
        }

        return null;
    }
}
