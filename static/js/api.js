// The workspace talks to the server only through the documented REST API (annotation.api).
// Every unsafe request carries the CSRF token from the csrftoken cookie.

export class NetworkError extends Error {}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.detail) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function request(method, url, body, { cache = "no-store" } = {}) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin", cache };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    // fetch rejects only when no HTTP answer arrived: offline, refused, dropped.
    throw new NetworkError(String(error));
  }
  let data = null;
  const type = response.headers.get("Content-Type") || "";
  if (type.includes("application/json")) {
    try {
      data = await response.json();
    } catch {
      throw new NetworkError("the answer was cut off");
    }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const api = {
  get: (url, options) => request("GET", url, undefined, options),
  post: (url, body) => request("POST", url, body || {}),
  patch: (url, body) => request("PATCH", url, body),
};

// URLs in the page config hold the placeholder id 0 (e.g. /api/annotation/steps/0/).
export function withId(template, id) {
  return template.replace("/0/", `/${encodeURIComponent(id)}/`);
}
