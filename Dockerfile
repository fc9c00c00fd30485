# LogFlushMonitor container image: docker build -t logflushmonitor .
FROM mcr.microsoft.com/dotnet/sdk:10.0 AS build
WORKDIR /src

# Restore in its own layer, from the project files only: a change to the code does not download packages again.
# Every project lives in src/<Name>/<Name>.csproj; the loop puts each file back in its folder.
COPY global.json Directory.Build.props Directory.Packages.props ./
COPY src/*/*.csproj ./projects/
RUN for f in projects/*.csproj; do \
      name=$(basename "$f" .csproj); mkdir -p "src/$name" && mv "$f" "src/$name/"; \
    done \
 && rmdir projects \
 && dotnet restore src/LogFlushMonitor/LogFlushMonitor.csproj

COPY . .
RUN dotnet publish src/LogFlushMonitor/LogFlushMonitor.csproj -c Release -o /app --no-restore

FROM mcr.microsoft.com/dotnet/aspnet:10.0
WORKDIR /app
COPY --from=build /app .
# In a container the endpoint must listen on every interface; logs go to stderr as JSON (docker logs shows both streams).
ENV LOGFLUSHMONITOR__Http__Urls=http://0.0.0.0:9464 \
    LOGFLUSHMONITOR__Log__Format=json
# Orchestrators probe /healthz (liveness) and /readyz (readiness) on this port.
EXPOSE 9464
# The runtime image has no curl or wget: the executable asks its own /healthz (exit 0 healthy, 1 not).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/app/logflushmonitor", "health", "--url", "http://127.0.0.1:9464/healthz"]
USER $APP_UID
ENTRYPOINT ["/app/logflushmonitor"]
CMD ["run"]
