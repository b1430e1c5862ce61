/**
 * redis-server as the replicas' state, as the replica tests and the benchmark run it: in the foreground,
 * on 127.0.0.1 only, nothing persisted, its files in `dir`.
 */
export function redisArgs(port: number, dir: string): string[] {
  return [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--pidfile",
    `${dir}/redis.pid`,
    "--daemonize",
    "no",
  ];
}

/**
 * nginx as the replicas' load balancer, as the replica tests and the replica benchmark run it (and as
 * docs/deployment.md shows it): one worker in the foreground, its files in `dir`, plain round robin over
 * `upstreams` (host:port) with SSE streamed through and no second try of a request; `sticky` hashes on
 * Mcp-Session-Id instead. Listens on 127.0.0.1 only.
 */
export function nginxConf(
  dir: string,
  port: number,
  upstreams: readonly string[],
  options: { sticky?: boolean; accessLog?: boolean } = {},
): string {
  const sticky = options.sticky === true;
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log ${options.accessLog === true ? `${dir}/access.log` : "off"};
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  ${sticky ? 'map $http_mcp_session_id $affinity { default $http_mcp_session_id; "" $request_id; }' : ""}
  upstream toolgate {
    ${sticky ? "hash $affinity consistent;" : ""}
    ${upstreams.map((u) => `server ${u} max_fails=0;`).join("\n    ")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://toolgate;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream off;
    }
  }
}
`;
}
