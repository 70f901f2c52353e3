"""Record HAR captures of a real Syncthing 1.19 driven through its REST config API.

Run through record.sh (it installs Debian's syncthing and the recorder venv). Once per recording
`syncthing generate` makes a certificate (the device's own id) under run/identity/, drawn again
until the id starts with `A`, so the own device sorts first in every device list (Syncthing sorts
devices by id and the seed's other ids start with later letters). For each scenario this script
writes a fresh home under run/home (that certificate, a config.xml naming the own device, the GUI
address, the API key and options that keep every network feature off: no global discovery, no
relays, no NAT, no local announce, no usage or crash reporting, no upgrades, a listener on
127.0.0.1 only), starts `syncthing serve` in run/ (so relative folder paths land under
run/folders/), seeds devices and folders through the API (not recorded), records the scenario
through the kit's mitmdump proxy and stops both by PID. Then the own id, which differs on every
recording, is replaced in the three HARs and the README by the fixed valid id `OWN_FIXED` (the
same length, so no length changes), and the README is written.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "kit"))

import httpx  # noqa: E402

from appdriver import AppSpec, record_app  # noqa: E402
from harlib import Recorder  # noqa: E402

APP_PORT = 18885
LISTEN_PORT = 18886
PROXY_PORT = 18985
BASE = f"http://127.0.0.1:{APP_PORT}"
API_KEY = "rea-corpus-syncthing-key"
HEADERS = {"X-API-Key": API_KEY}
OWN_NAME = "corpus-node"
C = "/rest/config"

# Valid Syncthing device ids (Luhn-checked base32), each the id of a throwaway certificate made by
# `syncthing generate` once for this corpus; no real person's device. None starts with `A` or a digit.
OWN_FIXED = "AOW74GT-OEGPSUA-7JHBUMD-NC6DK5K-PVPZQS5-YJ774H2-RXAF4YV-KAO6TA7"
LAPTOP = "FB7OS3F-FS2BG2Y-ZAS2FDC-NPBCAI6-CN2HGN7-CBUE7XV-56O3CCD-NHOYZAQ"
NAS = "EGBZRVU-7BGB4RV-FYK5Z5D-ZFA6EFL-JZ2XF57-LXQ7FH6-SABHZO7-OHUNOQG"
PHONE = "H4X67IA-2RLCHDO-ZJWMMS3-4QWW424-6HQA22X-ZQ3HGFM-JPYEEPQ-PUDRTAX"
DESKTOP = "LU7PQCC-YLZ4LHR-PI6ZX6X-O7WVIYA-KQEX7YW-5CQX4IG-GR7HKRZ-EOV66AI"
BACKUP = "NRXROME-4654G2Y-TIK665M-W2VGYHB-3E2SR5O-3YCDCRZ-EKFTLNM-B6MNUQN"
UNKNOWN = "LVX74M3-GLIVXCY-YA2TRKJ-FDNW3ZM-H2WTFUX-K4THEZD-6FJCTO4-E5DDCAO"
TABLET = "TMN5RSU-BTRRDDR-O6L2QYX-YIT667D-QC7SLTY-XUJXMBZ-N34BE3Y-IEJL5QP"
MEDIA = "BUHDEH3-WEFQOX6-5G6RMS5-QPZIL2N-FVHG7IM-SWFWDH2-YPBHKOF-S25AEQ6"

# ---------------------------------------------------------------- the seed
SEED_DEVICES = [
    {"deviceID": LAPTOP, "name": "laptop", "addresses": ["tcp://127.0.0.1:22101"]},
    {"deviceID": NAS, "name": "nas", "addresses": ["dynamic"], "compression": "always"},
    {"deviceID": PHONE, "name": "phone", "addresses": ["dynamic"], "paused": True},
]
SEED_FOLDERS = [
    {"id": "docs", "label": "Documents", "path": "folders/docs", "devices": ["own", LAPTOP, NAS]},
    {"id": "photos", "label": "Photos", "path": "folders/photos", "type": "sendonly", "devices": ["own", PHONE]},
    {"id": "music", "label": "Music", "path": "folders/music", "type": "receiveonly", "rescanIntervalS": 86400,
     "devices": ["own", NAS]},
]


def config_xml(own: str) -> str:
    """The seed configuration: the own device, the GUI on loopback with a fixed API key, options
    that keep every network feature off. Syncthing fills in every other field with its defaults."""
    return f"""<configuration version="36">
    <device id="{own}" name="{OWN_NAME}" compression="metadata" introducer="false" skipIntroductionRemovals="false" introducedBy="">
        <address>dynamic</address>
    </device>
    <gui enabled="true" tls="false" debugging="false">
        <address>127.0.0.1:{APP_PORT}</address>
        <apikey>{API_KEY}</apikey>
        <theme>default</theme>
    </gui>
    <options>
        <listenAddress>tcp://127.0.0.1:{LISTEN_PORT}</listenAddress>
        <globalAnnounceServer>default</globalAnnounceServer>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <startBrowser>false</startBrowser>
        <urAccepted>-1</urAccepted>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <crashReportingEnabled>false</crashReportingEnabled>
        <unackedNotificationID>authenticationUserAndPassword</unackedNotificationID>
    </options>
</configuration>
"""


def own_id(run: Path) -> str:
    return (run / "identity" / "device-id").read_text().strip()


def make_identity(run: Path) -> None:
    """A certificate whose id starts with `A` (the own device sorts first), once per recording."""
    ident = run / "identity"
    for _ in range(400):
        shutil.rmtree(ident, ignore_errors=True)
        out = subprocess.run(["syncthing", "generate", "--home", str(ident), "--skip-port-probing",
                              "--no-default-folder"], capture_output=True, text=True, check=True)
        found = re.search(r"Device ID: ([A-Z2-7-]{63})", out.stdout + out.stderr)
        if found and found.group(1).startswith("A"):
            (ident / "device-id").write_text(found.group(1) + "\n")
            return
    raise RuntimeError("no certificate with an id starting with A after 400 tries")


def prepare(run: Path) -> None:
    """A fresh home holding this recording's certificate and the seed config; no folders yet."""
    if not (run / "identity" / "device-id").exists():
        make_identity(run)
    home = run / "home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(run / "folders", ignore_errors=True)
    home.mkdir(parents=True)
    for name in ("cert.pem", "key.pem"):
        shutil.copy(run / "identity" / name, home / name)
    (home / "config.xml").write_text(config_xml(own_id(run)))


def seed_live(base: str) -> None:
    """Seed devices and folders through the API (not recorded), as a user would have added them."""
    own = own_id(HERE / "run")
    with httpx.Client(base_url=base, headers=HEADERS, timeout=30, trust_env=False) as c:
        for device in SEED_DEVICES:
            c.post(f"{C}/devices", json=device).raise_for_status()
        for folder in SEED_FOLDERS:
            body = dict(folder, devices=[{"deviceID": own if d == "own" else d} for d in folder["devices"]])
            c.post(f"{C}/folders", json=body).raise_for_status()


# ---------------------------------------------------------------- helpers
def get(rec: Recorder, path: str, why: str, expect=200) -> httpx.Response:
    return rec.call("GET", f"{C}{path}", why, expect=expect)


def write(rec: Recorder, method: str, path: str, why: str, body=None, expect=200, raw: str | None = None):
    if raw is not None:
        return rec.call(method, f"{C}{path}", why, content=raw.encode(), expect=expect,
                        headers={"Content-Type": "application/json"})
    if body is None:
        return rec.call(method, f"{C}{path}", why, expect=expect)
    return rec.call(method, f"{C}{path}", why, json=body, expect=expect)


def gui_write(rec: Recorder, method: str, body: dict, why: str) -> None:
    """A GUI write restarts the API listener: wait (unrecorded) until it answers again."""
    write(rec, method, "/gui", why, body)
    time.sleep(0.5)
    for _ in range(100):
        try:
            if httpx.get(f"{BASE}{C}/restart-required", headers=HEADERS, timeout=2, trust_env=False).is_success:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    rec.note("the API listener restarts after a GUI write; the recorder waits until it answers again")


def devs(*ids: str) -> list:
    return [{"deviceID": d} for d in ids]


def own_of(rec: Recorder) -> str:
    """The own device's id, as an agent learns it: the first device of the list."""
    return get(rec, "/devices", "the devices (the own device first)").json()[0]["deviceID"]


# ---------------------------------------------------------------- build
def build_discover(rec: Recorder) -> str:
    rec.section("Discover: the whole configuration and each part")
    get(rec, "", "the whole configuration: folders, devices, gui, ldap, options, defaults")
    get(rec, "/folders", "every folder")
    own = own_of(rec)
    get(rec, "/options", "the options")
    get(rec, "/gui", "the GUI and API settings")
    get(rec, "/ldap", "the LDAP settings")
    get(rec, "/defaults/folder", "the defaults a new folder gets")
    get(rec, "/defaults/device", "the defaults a new device gets")
    get(rec, "/defaults/ignores", "the default ignore lines")
    get(rec, "/restart-required", "does the running config need a restart? (no)")

    rec.section("Items, missing ids and a malformed device id")
    get(rec, "/folders/docs", "folder docs")
    get(rec, "/folders/photos", "folder photos (send only)")
    get(rec, f"/devices/{own}", "the own device")
    get(rec, f"/devices/{LAPTOP}", "device laptop")
    get(rec, "/folders/videos", "a folder that does not exist: 404 text", expect=404)
    get(rec, f"/devices/{DESKTOP}", "a valid device id that is not configured: 404 text", expect=404)
    get(rec, "/devices/NOT-A-DEVICE", "a malformed device id: 400 text", expect=400)
    return own


def build_folder_writes(rec: Recorder, own: str) -> None:
    rec.section("Folders: create by POST, read, list, whole config")
    write(rec, "POST", "/folders", "create folder projects shared with laptop",
          {"id": "projects", "label": "Projects", "path": "folders/projects", "devices": devs(own, LAPTOP)})
    get(rec, "/folders/projects", "read it: every other field from the folder defaults")
    get(rec, "/folders", "projects listed (folders sorted by id)")
    write(rec, "POST", "/folders", "create folder archive: receive only, daily rescans",
          {"id": "archive", "label": "Archive", "path": "folders/archive", "type": "receiveonly",
           "rescanIntervalS": 86400, "devices": devs(own, NAS)})
    get(rec, "/folders/archive", "read it")
    get(rec, "", "the whole configuration shows both new folders")

    rec.section("Folders: replace by PUT (the whole object), upsert a new id by PUT")
    body = get(rec, "/folders/projects", "read projects before replacing it").json()
    body.update(label="Client projects", fsWatcherEnabled=False, maxConflicts=-1)
    write(rec, "PUT", "/folders/projects", "replace projects: new label, no watcher, keep all conflicts", body)
    get(rec, "/folders/projects", "read it back")
    write(rec, "PUT", "/folders/scratch", "PUT a new id creates it (an upsert)",
          {"id": "scratch", "label": "Scratch", "path": "folders/scratch", "devices": devs(own)})
    get(rec, "/folders/scratch", "read it")
    get(rec, "/folders", "scratch listed")

    rec.section("Folders: merge by PATCH")
    write(rec, "PATCH", "/folders/docs", "rename docs and rescan every 10 minutes",
          {"label": "Team documents", "rescanIntervalS": 600})
    get(rec, "/folders/docs", "read it: label and interval changed, the rest kept")
    write(rec, "PATCH", "/folders/photos", "pause photos", {"paused": True})
    get(rec, "/folders/photos", "read it: paused")
    write(rec, "PATCH", "/folders/docs", "share docs with the phone too (the whole device list)",
          {"devices": devs(own, LAPTOP, NAS, PHONE)})
    get(rec, "/folders/docs", "read it: four devices")
    write(rec, "PATCH", "/folders/music", "versioning for music: keep 5 simple versions",
          {"versioning": {"type": "simple", "params": {"keep": "5"}, "cleanupIntervalS": 3600,
                          "fsPath": "", "fsType": "basic"}})
    get(rec, "/folders/music", "read it: versioning set")
    get(rec, "", "the whole configuration after the folder changes")

    rec.section("Folders: delete")
    write(rec, "DELETE", "/folders/scratch", "delete scratch")
    get(rec, "/folders/scratch", "read it: 404", expect=404)
    get(rec, "/folders", "scratch gone")
    write(rec, "PATCH", "/folders/scratch", "patch the deleted folder: 404", {"label": "x"}, expect=404)


def build_device_writes(rec: Recorder, own: str) -> None:
    rec.section("Devices: create by POST, upsert by PUT, read, list")
    write(rec, "POST", "/devices", "add device desktop with a fixed address",
          {"deviceID": DESKTOP, "name": "desktop", "addresses": ["tcp://127.0.0.1:22102"]})
    get(rec, f"/devices/{DESKTOP}", "read it: every other field from the device defaults")
    get(rec, "/devices", "desktop listed (devices sorted by id)")
    write(rec, "PUT", f"/devices/{BACKUP}", "PUT a new device id creates it",
          {"deviceID": BACKUP, "name": "backup-server", "addresses": ["dynamic"], "introducer": True})
    get(rec, f"/devices/{BACKUP}", "read it")
    get(rec, "", "the whole configuration shows both new devices")

    rec.section("Devices: replace by PUT, merge by PATCH")
    body = get(rec, f"/devices/{LAPTOP}", "read laptop before replacing it").json()
    body.update(name="work-laptop", compression="always", maxSendKbps=2000)
    write(rec, "PUT", f"/devices/{LAPTOP}", "replace laptop: new name, compression, send limit", body)
    get(rec, f"/devices/{LAPTOP}", "read it back")
    write(rec, "PATCH", f"/devices/{NAS}", "pause the nas and cap its receive rate",
          {"paused": True, "maxRecvKbps": 5000})
    get(rec, f"/devices/{NAS}", "read it")
    write(rec, "PATCH", f"/devices/{own}", "rename the own device", {"name": "office-node"})
    get(rec, f"/devices/{own}", "read it")
    get(rec, "/devices", "the devices after the changes")

    rec.section("Devices: delete (and what the folders that shared with it show)")
    write(rec, "DELETE", f"/devices/{PHONE}", "delete the phone")
    get(rec, f"/devices/{PHONE}", "read it: 404", expect=404)
    get(rec, "/devices", "phone gone")
    get(rec, "/folders/photos", "photos: shared with the phone before")
    get(rec, "", "the whole configuration after the device changes")


def build_settings(rec: Recorder) -> None:
    rec.section("Options: merge by PATCH, replace by PUT (the whole object read first)")
    write(rec, "PATCH", "/options", "limit the send rate and reconnect faster",
          {"maxSendKbps": 1000, "reconnectionIntervalS": 30})
    get(rec, "/options", "read them")
    get(rec, "/restart-required", "restart required?")
    body = get(rec, "/options", "read the options before replacing them").json()
    body.update(keepTemporariesH=48, progressUpdateIntervalS=10, maxFolderConcurrency=2)
    write(rec, "PUT", "/options", "replace the options (temporaries kept 48 h, slower progress)", body)
    get(rec, "/options", "read them back")

    rec.section("GUI: merge by PATCH, replace by PUT")
    gui_write(rec, "PATCH", {"theme": "dark"}, "dark theme")
    get(rec, "/gui", "read it")
    body = get(rec, "/gui", "read the GUI settings before replacing them").json()
    body.update(theme="black", debugging=True)
    gui_write(rec, "PUT", body, "replace the GUI settings: black theme, debugging on")
    get(rec, "/gui", "read them back")
    get(rec, "/restart-required", "restart required after the GUI change?")

    rec.section("Defaults: what new folders and devices get")
    write(rec, "PATCH", "/defaults/folder", "new folders: rescan every 30 minutes, watcher delay 20 s",
          {"rescanIntervalS": 1800, "fsWatcherDelayS": 20})
    get(rec, "/defaults/folder", "read them")
    write(rec, "POST", "/folders", "create folder inbox naming only id, label and path",
          {"id": "inbox", "label": "Inbox", "path": "folders/inbox"})
    get(rec, "/folders/inbox", "read it: the new defaults applied")
    write(rec, "PATCH", "/defaults/device", "new devices: compression always, auto-accept folders",
          {"compression": "always", "autoAcceptFolders": True})
    get(rec, "/defaults/device", "read them")
    write(rec, "POST", "/devices", "add device media naming only id and name",
          {"deviceID": MEDIA, "name": "media"})
    get(rec, f"/devices/{MEDIA}", "read it: the new defaults applied")


def build_errors(rec: Recorder) -> None:
    rec.section("Validation errors (plain text answers)")
    write(rec, "POST", "/folders", "a body that is not JSON: 400", raw='{"id": "broken",', expect=400)
    write(rec, "PATCH", "/options", "a field of the wrong type: 400", {"maxRecvKbps": "fast"}, expect=400)
    write(rec, "POST", "/devices", "a malformed device id: 400", {"deviceID": "XYZ", "name": "bad"}, expect=400)
    write(rec, "POST", "/folders", "a folder without an id: 500", {"id": "", "path": "folders/none"}, expect=500)
    write(rec, "DELETE", "/folders/videos", "delete a folder that does not exist: 200, nothing happens")
    get(rec, "/folders", "the folders at the end")
    get(rec, "/devices", "the devices at the end")
    get(rec, "", "the whole configuration at the end")


def scenario_build(rec: Recorder) -> None:
    own = build_discover(rec)
    build_folder_writes(rec, own)
    build_device_writes(rec, own)
    build_settings(rec)
    build_errors(rec)


# ---------------------------------------------------------------- probe-reads
def scenario_probe_reads(rec: Recorder) -> None:
    rec.section("Lists and the whole configuration after a restart from the seed")
    get(rec, "/folders", "every folder")
    own = own_of(rec)
    get(rec, "", "the whole configuration")

    rec.section("Items the build never read, and some it did")
    get(rec, "/folders/music", "folder music")
    get(rec, "/folders/docs", "folder docs (seed label again)")
    get(rec, "/folders/photos", "folder photos (not paused)")
    get(rec, f"/devices/{NAS}", "device nas")
    get(rec, f"/devices/{PHONE}", "device phone (deleted in the build, here again)")
    get(rec, f"/devices/{LAPTOP}", "device laptop (seed name)")
    get(rec, f"/devices/{own}", "the own device (seed name)")
    get(rec, "/folders/projects", "a folder only the build created: 404", expect=404)
    get(rec, "/folders/inbox", "another: 404", expect=404)
    get(rec, f"/devices/{DESKTOP}", "a device only the build created: 404", expect=404)
    get(rec, f"/devices/{UNKNOWN}", "a valid id never configured: 404", expect=404)
    get(rec, f"/devices/{TABLET}", "another valid id never configured: 404", expect=404)
    get(rec, "/folders/Docs", "folder ids are case sensitive: 404", expect=404)
    get(rec, "/folders/archive", "a third folder only the build created: 404", expect=404)
    get(rec, "/folders/backups", "a folder id never used: 404", expect=404)
    get(rec, f"/devices/{BACKUP}", "another device only the build created: 404", expect=404)
    get(rec, f"/devices/{MEDIA}", "a third: 404", expect=404)
    get(rec, f"/devices/{NAS.lower()}", "device nas spelled in lower case", expect=(200, 400, 404))
    get(rec, f"/devices/{PHONE.replace('-', '')}", "device phone without the dashes", expect=(200, 400, 404))
    get(rec, "/devices/12345", "a malformed device id: 400", expect=400)
    get(rec, "/devices/FB7OS3F-FS2BG2Y", "a truncated device id: 400", expect=400)

    rec.section("Settings, defaults, restart")
    get(rec, "/options", "the options (seed values)")
    get(rec, "/gui", "the GUI settings (seed theme)")
    get(rec, "/ldap", "the LDAP settings")
    get(rec, "/defaults/folder", "folder defaults (seed values)")
    get(rec, "/defaults/device", "device defaults (seed values)")
    get(rec, "/defaults/ignores", "default ignore lines")
    get(rec, "/restart-required", "no restart required")

    rec.section("Reads repeated, as an agent checks again")
    get(rec, "/folders/music", "music again")
    get(rec, f"/devices/{PHONE}", "the phone again")
    get(rec, "/devices", "the devices again")
    get(rec, "/folders", "the folders again")
    get(rec, "/options", "the options again")
    get(rec, "/gui", "the GUI settings again")
    get(rec, "/restart-required", "still no restart required")
    get(rec, "", "the whole configuration again")


# ---------------------------------------------------------------- probe-crud
def crud_folders(rec: Recorder, own: str) -> None:
    rec.section("Folders: create, replace, merge, delete")
    write(rec, "POST", "/folders", "create folder videos shared with the nas",
          {"id": "videos", "label": "Videos", "path": "folders/videos", "type": "sendonly",
           "devices": devs(own, NAS)})
    get(rec, "/folders/videos", "read it")
    get(rec, "/folders", "videos listed")
    body = get(rec, "/folders/videos", "read videos before replacing it").json()
    body.update(label="Family videos", rescanIntervalS=7200)
    write(rec, "PUT", "/folders/videos", "replace videos: new label and interval", body)
    get(rec, "/folders/videos", "read it back")
    write(rec, "PATCH", "/folders/music", "music becomes send-receive with a new label",
          {"type": "sendreceive", "label": "Music library"})
    get(rec, "/folders/music", "read it")
    get(rec, "/folders", "the folders")
    write(rec, "DELETE", "/folders/music", "delete music")
    get(rec, "/folders/music", "read it: 404", expect=404)
    get(rec, "/folders", "music gone")
    write(rec, "PATCH", "/folders/music", "patch the deleted folder: 404", {"paused": True}, expect=404)
    get(rec, "", "the whole configuration after the folder changes")


def crud_devices(rec: Recorder) -> None:
    rec.section("Devices: create, merge, replace, delete")
    write(rec, "POST", "/devices", "add device tablet",
          {"deviceID": TABLET, "name": "tablet", "addresses": ["tcp://127.0.0.1:22103"]})
    get(rec, f"/devices/{TABLET}", "read it")
    get(rec, "/devices", "tablet listed")
    write(rec, "PATCH", f"/devices/{LAPTOP}", "rename laptop and give it a second address",
          {"name": "laptop-2", "addresses": ["tcp://127.0.0.1:22101", "dynamic"]})
    get(rec, f"/devices/{LAPTOP}", "read it")
    body = get(rec, f"/devices/{PHONE}", "read the phone before replacing it").json()
    body.update(paused=False, name="phone-2", introducer=True)
    write(rec, "PUT", f"/devices/{PHONE}", "replace the phone: unpaused, renamed, an introducer", body)
    get(rec, f"/devices/{PHONE}", "read it back")
    write(rec, "DELETE", f"/devices/{LAPTOP}", "delete laptop")
    get(rec, f"/devices/{LAPTOP}", "read it: 404", expect=404)
    get(rec, "/folders/docs", "docs: shared with laptop before")
    get(rec, "/devices", "the devices")


def crud_settings(rec: Recorder) -> None:
    rec.section("Options, GUI, defaults")
    write(rec, "PATCH", "/options", "cap the receive rate", {"maxRecvKbps": 800})
    get(rec, "/options", "read them")
    gui_write(rec, "PATCH", {"theme": "black"}, "black theme")
    get(rec, "/gui", "read it")
    get(rec, "/restart-required", "restart required?")
    write(rec, "PATCH", "/defaults/device", "new devices get a 100 KiB/s send cap", {"maxSendKbps": 100})
    get(rec, "/defaults/device", "read them")
    write(rec, "POST", "/devices", "add device media naming only id and name", {"deviceID": MEDIA, "name": "media"})
    get(rec, f"/devices/{MEDIA}", "read it: the new default applied")

    rec.section("Errors, then the whole configuration")
    write(rec, "PATCH", f"/devices/{NAS}", "a body that is not JSON: 400", raw='{"paused": tru', expect=400)
    write(rec, "PATCH", "/folders/docs", "a field of the wrong type: 400", {"rescanIntervalS": "hourly"},
          expect=400)
    write(rec, "PUT", "/devices/SHORT", "a malformed device id in the body: 400",
          {"deviceID": "SHORT", "name": "x"}, expect=400)
    get(rec, "/folders/docs", "docs unchanged")
    get(rec, "", "the whole configuration at the end")


def scenario_probe_crud(rec: Recorder) -> None:
    own = own_of(rec)
    crud_folders(rec, own)
    crud_devices(rec)
    crud_settings(rec)


SCENARIOS = [
    ("build", scenario_build),
    ("probe-reads", scenario_probe_reads),
    ("probe-crud", scenario_probe_crud),
]


# ---------------------------------------------------------------- running
def command(run: Path) -> list:
    return ["syncthing", "serve", "--home", run / "home", "--no-browser", "--no-restart", "--no-upgrade",
            "--logflags=0"]


def syncthing_version() -> str:
    out = subprocess.run(["syncthing", "--version"], capture_output=True, text=True, check=True).stdout
    return out.split()[1]


def fix_own_id(run: Path) -> None:
    """Replace this recording's own id by OWN_FIXED in the captures and the README."""
    own = own_id(run)
    assert len(own) == len(OWN_FIXED) and own.startswith("A")
    for name in [f"{n}.har" for n, _ in SCENARIOS] + ["README.md"]:
        path = HERE / name
        path.write_text(path.read_text().replace(own, OWN_FIXED))


def main() -> None:
    import os

    import readme  # the prose of README.md, next to this file

    run = HERE / "run"
    shutil.rmtree(run / "identity", ignore_errors=True)
    env = dict(os.environ, STNODEFAULTFOLDER="1", STNOUPGRADE="1", HOME=str(run))
    record_app(AppSpec(name="syncthing", here=HERE, dist="", app_port=APP_PORT, proxy_port=PROXY_PORT,
                       command=command, scenarios=SCENARIOS, render_readme=readme.render, prepare=prepare,
                       seed_live=seed_live, headers=HEADERS, ready_path=f"{C}/restart-required",
                       env=env, stop_signal=signal.SIGTERM, settle=1.0, version=syncthing_version))
    fix_own_id(run)


if __name__ == "__main__":
    main()
