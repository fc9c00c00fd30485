namespace LogFlushMonitor.TdsTestServer;

/// <summary>A result-set column: its name and wire type.</summary>
/// <param name="Name">Column name as the client sees it.</param>
/// <param name="Type">Wire type.</param>
public sealed record TdsColumn(string Name, TdsType Type)
{
    /// <summary>Digits after the point for <see cref="TdsType.Decimal"/> (decimal(38, Scale)).</summary>
    public byte Scale { get; init; } = 6;

    /// <summary>A decimal(38, <paramref name="scale"/>) column.</summary>
    public static TdsColumn Decimal(string name, byte scale = 6) => new(name, TdsType.Decimal) { Scale = scale };

    /// <summary>A sql_variant column.</summary>
    public static TdsColumn SqlVariant(string name) => new(name, TdsType.SqlVariant);

    /// <summary>An nvarchar(4000) column.</summary>
    public static TdsColumn NVarChar(string name) => new(name, TdsType.NVarChar);

    /// <summary>An nvarchar(max) column.</summary>
    public static TdsColumn NVarCharMax(string name) => new(name, TdsType.NVarCharMax);

    /// <summary>An int column.</summary>
    public static TdsColumn Int(string name) => new(name, TdsType.Int);

    /// <summary>A bigint column.</summary>
    public static TdsColumn BigInt(string name) => new(name, TdsType.BigInt);

    /// <summary>A float column.</summary>
    public static TdsColumn Float(string name) => new(name, TdsType.Float);

    /// <summary>A bit column.</summary>
    public static TdsColumn Bit(string name) => new(name, TdsType.Bit);

    /// <summary>A datetime2(7) column.</summary>
    public static TdsColumn DateTime2(string name) => new(name, TdsType.DateTime2);

    /// <summary>A varbinary(8000) column.</summary>
    public static TdsColumn VarBinary(string name) => new(name, TdsType.VarBinary);

    /// <summary>A varbinary(max) column, sent as PLP.</summary>
    public static TdsColumn VarBinaryMax(string name) => new(name, TdsType.VarBinaryMax);
}
