namespace LogFlushMonitor.TdsTestServer;

/// <summary>Column types the server can send in a result set (all nullable).</summary>
public enum TdsType
{
    /// <summary>nvarchar(4000); values are <see cref="string"/>.</summary>
    NVarChar,

    /// <summary>nvarchar(max), sent as PLP; values are <see cref="string"/>.</summary>
    NVarCharMax,

    /// <summary>tinyint (INTN 1); values convert to <see cref="byte"/>.</summary>
    TinyInt,

    /// <summary>smallint (INTN 2); values convert to <see cref="short"/>.</summary>
    SmallInt,

    /// <summary>int (INTN 4); values convert to <see cref="int"/>.</summary>
    Int,

    /// <summary>bigint (INTN 8); values convert to <see cref="long"/>.</summary>
    BigInt,

    /// <summary>real (FLTN 4); values convert to <see cref="float"/>.</summary>
    Real,

    /// <summary>float (FLTN 8); values convert to <see cref="double"/>.</summary>
    Float,

    /// <summary>bit (BITN); values are <see cref="bool"/>.</summary>
    Bit,

    /// <summary>datetime2(7); values are <see cref="DateTime"/>.</summary>
    DateTime2,

    /// <summary>uniqueidentifier; values are <see cref="Guid"/>.</summary>
    UniqueIdentifier,

    /// <summary>varbinary(8000); values are <see cref="byte"/>[] or <see cref="ReadOnlyMemory{T}"/> of byte.</summary>
    VarBinary,

    /// <summary>varbinary(max), sent as PLP in chunks; values as for <see cref="VarBinary"/>.</summary>
    VarBinaryMax,

    /// <summary>datetime (legacy, 1/300 s); values are <see cref="DateTime"/>, rounded as SQL Server does.</summary>
    DateTime,

    /// <summary>datetimeoffset(7); values are <see cref="System.DateTimeOffset"/>.</summary>
    DateTimeOffset,

    /// <summary>decimal(38, <see cref="TdsColumn.Scale"/>); values convert to <see cref="decimal"/>.</summary>
    Decimal,

    /// <summary>sql_variant (e.g. sys.dm_xe_session_object_columns.column_value); values of int, long, short, byte, bool, double, float, decimal, string, byte[], DateTime or Guid.</summary>
    SqlVariant,
}
