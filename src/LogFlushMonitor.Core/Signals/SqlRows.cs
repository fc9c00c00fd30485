using System.Data;
using System.Data.Common;
using System.Globalization;

namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// Sends one statement of a signal and reads its rows by column name, each cell by the type the row needs. A NULL where
/// the row needs a value skips the row (<see cref="PollContext.NullCell"/>); a column missing or a cell no conversion
/// makes the wanted type is a <see cref="StatementAnswerException"/> that names the statement and the column. Written by
/// hand over <see cref="DbDataReader"/> rather than with Dapper: the signals live in Core, which the offline
/// <c>logflushmonitor-analyze</c> carries too, and what Dapper.AOT generates for a row is these few typed reads.
/// </summary>
public static class SqlRows
{
    /// <summary>The rows of <paramref name="statement"/>, each made by <paramref name="read"/>; rows with a NULL it needed are left out.</summary>
    public static async Task<List<TRow>> ReadAsync<TRow>(DbConnection connection, PollContext context, SignalStatement statement, Func<RowCells, TRow> read, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(statement);
        ArgumentNullException.ThrowIfNull(read);
        var command = connection.CreateCommand();
        await using (command.ConfigureAwait(false))
        {
            command.CommandText = statement.Text;
            command.CommandTimeout = context.CommandTimeoutSeconds;
            foreach (var (name, value) in statement.Parameters ?? new Dictionary<string, object>())
            {
                var p = command.CreateParameter();
                p.ParameterName = "@" + name;
                p.Value = value;
                if (value is string)
                {
                    p.DbType = DbType.String;
                    p.Size = 4000;
                }

                command.Parameters.Add(p);
            }

            var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            await using (reader.ConfigureAwait(false))
            {
                var cells = new RowCells(reader, statement);
                var rows = new List<TRow>();
                while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
                {
                    cells.NullColumn = null;
                    var row = read(cells);
                    if (cells.NullColumn is { } column)
                    {
                        context.NullCell(statement.View, statement.SourceOf(column));
                        continue;
                    }

                    rows.Add(row);
                }

                return rows;
            }
        }
    }
}

/// <summary>The cells of the current row of one statement's answer, read by column name (ignoring case, as Dapper did).</summary>
public sealed class RowCells
{
    private readonly DbDataReader _reader;
    private readonly SignalStatement _statement;
    private readonly Dictionary<string, int> _ordinals = new(StringComparer.OrdinalIgnoreCase);

    internal RowCells(DbDataReader reader, SignalStatement statement)
    {
        _reader = reader;
        _statement = statement;
        for (var i = 0; i < reader.FieldCount; i++)
        {
            _ordinals.TryAdd(reader.GetName(i), i);
        }
    }

    /// <summary>The first column of the current row that was NULL where a value was needed, or null.</summary>
    public string? NullColumn { get; internal set; }

    /// <summary>A 32-bit integer the row needs (0 and the row left out when NULL).</summary>
    public int Int32(string column) => Int32OrNull(column, required: true) ?? 0;

    /// <summary>A 32-bit integer, or null.</summary>
    public int? Int32OrNull(string column) => Int32OrNull(column, required: false);

    /// <summary>A 64-bit integer the row needs (0 and the row left out when NULL).</summary>
    public long Int64(string column) => Int64OrNull(column, required: true) ?? 0;

    /// <summary>A 64-bit integer, or null.</summary>
    public long? Int64OrNull(string column) => Int64OrNull(column, required: false);

    /// <summary>Text the row needs ("" and the row left out when NULL).</summary>
    public string String(string column) => StringOrNull(column, required: true) ?? "";

    /// <summary>Text, or null.</summary>
    public string? StringOrNull(string column) => StringOrNull(column, required: false);

    /// <summary>A number with a fraction (float, real, decimal or an integer), or null.</summary>
    public double? DoubleOrNull(string column)
    {
        var i = Ordinal(column);
        if (Null(i, column, required: false))
        {
            return null;
        }

        return _reader.GetValue(i) switch
        {
            double d => d,
            float f => f,
            decimal m => (double)m,
            long or int or short or byte => Convert.ToDouble(_reader.GetValue(i), CultureInfo.InvariantCulture),
            var other => throw Mismatch(column, other, "a number"),
        };
    }

    /// <summary>Whether the answer has a column named <paramref name="column"/> (ignoring case): for a view whose documentation names a column two ways.</summary>
    public bool Has(string column) => _ordinals.ContainsKey(column);

    /// <summary>A bit the row needs (false and the row left out when NULL).</summary>
    public bool Boolean(string column)
    {
        var i = Ordinal(column);
        if (Null(i, column, required: true))
        {
            return false;
        }

        return _reader.GetValue(i) switch
        {
            bool b => b,
            byte or short or int or long => Convert.ToInt64(_reader.GetValue(i), CultureInfo.InvariantCulture) != 0,
            var other => throw Mismatch(column, other, "a bit"),
        };
    }

    /// <summary>A time the row needs (default and the row left out when NULL), as the server wrote it (no time zone).</summary>
    public DateTime DateTime(string column)
    {
        var i = Ordinal(column);
        if (Null(i, column, required: true))
        {
            return default;
        }

        return _reader.GetValue(i) switch
        {
            DateTime t => t,
            DateTimeOffset o => o.DateTime,
            var other => throw Mismatch(column, other, "a date and time"),
        };
    }

    private int? Int32OrNull(string column, bool required)
    {
        var value = Int64OrNull(column, required);
        if (value is not { } v)
        {
            return null;
        }

        return v is >= int.MinValue and <= int.MaxValue ? (int)v : throw new StatementAnswerException($"{_statement.View}: column {column} ({_statement.SourceOf(column)}) holds {v}, more than a 32-bit integer holds");
    }

    private long? Int64OrNull(string column, bool required)
    {
        var i = Ordinal(column);
        if (Null(i, column, required))
        {
            return null;
        }

        var type = _reader.GetFieldType(i);
        if (type == typeof(long))
        {
            return _reader.GetInt64(i);
        }

        if (type == typeof(int))
        {
            return _reader.GetInt32(i);
        }

        if (type == typeof(short))
        {
            return _reader.GetInt16(i);
        }

        if (type == typeof(byte))
        {
            return _reader.GetByte(i);
        }

        var value = _reader.GetValue(i);
        if (value is decimal d && d == decimal.Truncate(d) && d is >= long.MinValue and <= long.MaxValue)
        {
            return (long)d;
        }

        throw Mismatch(column, value, "an integer");
    }

    private string? StringOrNull(string column, bool required)
    {
        var i = Ordinal(column);
        if (Null(i, column, required))
        {
            return null;
        }

        return _reader.GetValue(i) switch
        {
            string s => s,
            var other => throw Mismatch(column, other, "text"),
        };
    }

    private bool Null(int ordinal, string column, bool required)
    {
        if (!_reader.IsDBNull(ordinal))
        {
            return false;
        }

        if (required)
        {
            NullColumn ??= column;
        }

        return true;
    }

    private int Ordinal(string column) =>
        _ordinals.TryGetValue(column, out var i) ? i : throw new StatementAnswerException($"{_statement.View}: the answer has no column {column} ({_statement.SourceOf(column)})");

    private StatementAnswerException Mismatch(string column, object value, string expected) =>
        new($"{_statement.View}: column {column} ({_statement.SourceOf(column)}) holds {value.GetType().Name}, not {expected}");
}
