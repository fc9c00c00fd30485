global using Xunit;
global using LogFlushMonitor.Testing;
