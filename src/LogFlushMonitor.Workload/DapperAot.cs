// Every Dapper call of this assembly goes through Dapper.AOT's build-time generated code, as in LogFlushMonitor.SqlServer
// (its DapperAot.cs says what the generator needs): the workload runs in the NativeAOT build too.
[module: Dapper.DapperAot]
