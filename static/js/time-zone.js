// Tells the server the browser's time zone (the `tz` cookie), so every page shows moments in
// the person's own zone (studio.middleware.TimeZoneMiddleware). When the cookie was missing or
// stale, the page that is open now was drawn in the old zone: its <time> elements are redrawn
// in place, and the next page is right from the start.

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const current = document.cookie.split("; ").find((c) => c.startsWith("tz="));
// IANA names ("America/Argentina/Buenos_Aires") are cookie-safe as they are; anything else is
// not a zone the server would take.
if (zone && /^[A-Za-z0-9_+\-/]+$/.test(zone) && (!current || current.slice(3) !== zone)) {
  document.cookie = `tz=${zone}; path=/; max-age=31536000; SameSite=Lax`;
  redraw();
}

function pad(n) {
  return String(n).padStart(2, "0");
}

// The format of studio.display.moment: 2026-03-01 15:05:09 CET.
function moment(date) {
  const name = new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" })
    .formatToParts(date)
    .find((p) => p.type === "timeZoneName");
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `${day} ${time}${name ? ` ${name.value}` : ""}`;
}

function redraw() {
  for (const el of document.querySelectorAll("time[datetime][data-moment]")) {
    const date = new Date(el.getAttribute("datetime"));
    if (!Number.isNaN(date.getTime())) el.textContent = moment(date);
  }
}
