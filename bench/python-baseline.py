"""The Python standard-library baseline for `npm run bench`.

Reads an mbox with mailbox.mbox and parses every message with the email
package the way an mbox-reading collector does (GrimoireLab Perceval's mbox
backend, for one): the From, Subject, Date and Message-ID headers decoded,
every part walked, and each text part's payload decoded to a string in its
charset. Nothing is stored. Prints one JSON line: messages, parts, decoded
text characters, the seconds and CPU seconds the parsing took (interpreter
start-up not included) and the peak RSS.

    python3 bench/python-baseline.py ARCHIVE.mbox
"""
import email.header
import email.utils
import json
import mailbox
import platform
import resource
import sys
import time


def decoded_header(message, name):
    value = message.get(name)
    if value is None:
        return None
    try:
        return str(email.header.make_header(email.header.decode_header(str(value))))
    except (email.errors.HeaderParseError, LookupError, UnicodeError):
        return str(value)


def text_of(part):
    payload = part.get_payload(decode=True)
    if payload is None:
        return ''
    charset = part.get_content_charset() or 'ascii'
    try:
        return payload.decode(charset, errors='replace')
    except LookupError:
        return payload.decode('latin-1')


def main(path):
    began = time.perf_counter()
    cpu_began = time.process_time()
    messages = parts = characters = 0
    for message in mailbox.mbox(path, create=False):
        messages += 1
        decoded_header(message, 'From')
        decoded_header(message, 'Subject')
        decoded_header(message, 'Message-ID')
        date = message.get('Date')
        if date:
            try:
                email.utils.parsedate_to_datetime(str(date))
            except (TypeError, ValueError):
                pass
        for part in message.walk():
            parts += 1
            if part.get_content_maintype() == 'text':
                characters += len(text_of(part))
    seconds = time.perf_counter() - began
    cpu_seconds = time.process_time() - cpu_began
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
    print(json.dumps({
        'python': platform.python_version(),
        'messages': messages,
        'parts': parts,
        'characters': characters,
        'seconds': round(seconds, 3),
        'cpuSeconds': round(cpu_seconds, 3),
        'maxRssBytes': max_rss,
    }))


if __name__ == '__main__':
    main(sys.argv[1])
