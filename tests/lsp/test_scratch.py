from lsp_support import *  # noqa

async def test_x(client, folder):
    a = open_document(client, folder, ESSAY)
    s = open_document(client, folder, SOURCE)
    d = await published(client, a, where=lambda d: len(d) == 2)
    e = await published(client, s, where=lambda d: len(d) >= 1)
    print(essay_range(folder), source_range(folder))
    for x in d + e:
        print(x.range, x.message, x.related_information)
    print(await status(client))
    print(client.progress_reports)
    print(client.stderr_lines)
