"""Signs up a throwaway identity account through the public flow and prints its access token.

Usage: identity_signup.py BASE_URL OUTBOX_PATH [--with-phone]
The OTP is read from the built-in outbox, as a local user would. With --with-phone the
output is "PHONE TOKEN" (PIN 2468).
"""
import json
import random
import re
import sys
import urllib.request


def post(base, path, body):
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req) as res:
        return json.load(res)["data"]


def main():
    base, outbox = sys.argv[1], sys.argv[2]
    phone = "+49176%08d" % random.randrange(10**8)
    post(base, "/auth/otp/send", {"phone": phone, "purpose": "signup"})
    lines = [json.loads(l) for l in open(outbox) if l.strip()]
    text = [l for l in lines if l["to"] == phone][-1]["text"]
    code = re.search(r"\b(\d{6})\b", text).group(1)
    temp = post(base, "/auth/otp/verify", {"phone": phone, "code": code, "purpose": "signup"})["temp_token"]
    handle = "fuzz_%06d" % random.randrange(10**6)
    data = post(base, "/auth/signup", {"temp_token": temp, "pin": "2468", "handle": handle})
    if "--with-phone" in sys.argv:
        print(phone, data["access_token"])
    else:
        print(data["access_token"])


if __name__ == "__main__":
    main()
