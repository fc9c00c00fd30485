# LogFlushMonitor container image from source: docker build -t logflushmonitor:local .
# (docker-compose.build.yml does this for the Compose stack.) The published image is built from the release binaries
# instead, by Dockerfile.release; both end in the same runtime stage (DockerfileTests keeps them equal).
# The NativeAOT build (docs/aot.md): one native executable on the runtime-deps base (no .NET runtime in the image).
FROM mcr.microsoft.com/dotnet/sdk:10.0 AS build
# NativeAOT links with clang and needs zlib's headers.
RUN apt-get update \
 && apt-get install -y --no-install-recommends clang zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src

# Restore in its own layer, from the project files only: a change to the code does not download packages again.
# Every project lives in src/<Name>/<Name>.csproj; the loop puts each file back in its folder. The restore names the
# runtime and PublishAot, so the native compiler's packages come in this layer too.
COPY global.json Directory.Build.props Directory.Packages.props ./
COPY src/*/*.csproj ./projects/
RUN for f in projects/*.csproj; do \
      name=$(basename "$f" .csproj); mkdir -p "src/$name" && mv "$f" "src/$name/"; \
    done \
 && rmdir projects \
 && dotnet restore src/LogFlushMonitor/LogFlushMonitor.csproj -r linux-x64 -p:PublishAot=true

COPY . .
# What `logflushmonitor --version` prints: the context has no .git, so the commit comes from REVISION
# (docker build --build-arg REVISION=$(git rev-parse HEAD) .); VERSION defaults to the repository's, marked -dev.
ARG VERSION=""
ARG REVISION=""
# Symbols (.dbg, .pdb) and XML docs stay in the build stage: the image carries the executable, appsettings.json, the
# licence and docs/.
RUN dotnet publish src/LogFlushMonitor/LogFlushMonitor.csproj -c Release -r linux-x64 -p:PublishAot=true -o /app --no-restore \
      ${VERSION:+"-p:Version=$VERSION"} ${REVISION:+"-p:SourceRevisionId=$REVISION"} \
 && rm -f /app/*.dbg /app/*.pdb /app/*.xml

# runtime-deps: the native libraries .NET needs (glibc, OpenSSL, ICU for SqlClient), no runtime: the executable is native.
FROM mcr.microsoft.com/dotnet/runtime-deps:10.0
ARG VERSION=""
ARG REVISION=""
LABEL org.opencontainers.image.title="LogFlushMonitor" \
      org.opencontainers.image.description="Watches how SQL Server hardens its transaction log, per database, and exports it as OpenTelemetry metrics (Prometheus /metrics, OTLP). Built from source." \
      org.opencontainers.image.source="https://github.com/logflushmonitor/logflushmonitor" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
WORKDIR /app
COPY --from=build /app .
# The licence and the documentation, as in the published image.
COPY --from=build --chmod=0644 /src/LICENSE /app/LICENSE
COPY --from=build /src/docs /app/docs
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
