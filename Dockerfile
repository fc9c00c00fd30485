# LogFlushMonitor container image: docker build -t logflushmonitor .
FROM mcr.microsoft.com/dotnet/sdk:10.0 AS build
WORKDIR /src
COPY . .
RUN dotnet publish src/LogFlushMonitor/LogFlushMonitor.csproj -c Release -o /app

FROM mcr.microsoft.com/dotnet/aspnet:10.0
WORKDIR /app
COPY --from=build /app .
# In a container the endpoint must listen on every interface; logs go to stdout as JSON.
ENV LOGFLUSHMONITOR__Http__Urls=http://0.0.0.0:9464 \
    LOGFLUSHMONITOR__Log__Format=json
# Orchestrators probe /healthz (liveness) and /readyz (readiness) on this port.
EXPOSE 9464
USER $APP_UID
ENTRYPOINT ["/app/logflushmonitor"]
CMD ["run"]
