/**
 * The one stylesheet of the simulators' web pages: a shared layout, and per network (`body.net-<network>`)
 * the colours, shapes and order that make the page read as that network's. System fonts only: a page makes
 * no request outside the simulator.
 */

const base = `*{box-sizing:border-box}
body{margin:0;font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:var(--page);color:var(--ink)}
a{color:var(--accent)}
.bar{display:flex;align-items:center;gap:1rem;padding:.6rem 1rem;background:var(--bar);border-bottom:1px solid var(--line)}
.brand{font-weight:800;font-size:1.5rem;color:var(--brand)}
.sandbox{margin-left:auto;font-size:.8rem;color:var(--muted)}
main{max-width:var(--width);margin:0 auto;background:var(--column);border:0 solid var(--line)}
.entry{position:relative;display:flex;flex-direction:column;gap:.5rem;padding:.9rem 1rem;border-bottom:1px solid var(--line)}
.meta{display:flex;align-items:center;gap:.5rem;flex-wrap:wrap}
.avatar{flex:none;display:inline-flex;align-items:center;justify-content:center;width:40px;height:40px;border-radius:50%;background:var(--avatar);color:#fff;font-weight:700;font-size:.9rem;overflow:hidden}
.avatar img{width:100%;height:100%;object-fit:cover}
.name{color:var(--ink)}.handle,time,.replying{color:var(--muted)}
time{font-size:.85rem}
.title{margin:0;font-size:1.2rem}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.post .text{font-size:1.05rem}
.media{display:grid;gap:2px;border-radius:var(--media-radius);overflow:hidden;border:1px solid var(--line)}
.media.n2,.media.n3,.media.n4{grid-template-columns:1fr 1fr}
.media img,.media video{display:block;width:100%;max-height:560px;object-fit:cover;background:#000}
.poster{display:flex;align-items:center;justify-content:center;gap:.5rem;min-height:220px;background:#111;color:#eee;font-weight:600}
.play{font-size:2rem}
.card{display:flex;flex-direction:column;padding:.6rem .8rem;border:1px solid var(--line);border-radius:var(--media-radius);text-decoration:none;color:var(--ink)}
.host{font-size:.8rem;color:var(--muted)}
.replying{margin:.8rem 1rem 0}
.comments h2{margin:0;padding:.8rem 1rem .2rem;font-size:1rem}
.missing{padding:2rem 1rem}
.profile{display:flex;flex-direction:column;align-items:center;gap:.3rem;padding:1.5rem 1rem;border-bottom:1px solid var(--line)}
.profile .avatar.big{position:static;width:84px;height:84px;font-size:1.6rem}
.open{margin:0;padding:.2rem 1rem .8rem;border-bottom:1px solid var(--line)}
.badge{margin:0;font-size:.8rem;font-weight:600;color:var(--muted)}
.facts{margin:0;padding:0;list-style:none;color:var(--muted)}
.actions{margin:.2rem 0 0}
.action{display:inline-block;padding:.45rem 1rem;border:1px solid var(--line);border-radius:var(--media-radius);color:var(--accent);font-weight:600;text-decoration:none}
.note{margin:0;font-size:.85rem;color:var(--muted)}
`

/** Avatar beside the copy, the author's thread joined by a line: X, Bluesky, Threads. */
const timeline = (selector: string) => `${selector} .entry{padding-left:68px;min-height:72px}
${selector} .avatar{position:absolute;left:16px;top:14px}
${selector} .thread .entry::before{content:"";position:absolute;left:35px;top:0;height:14px;border-left:2px solid var(--line)}
${selector} .comments .entry{padding-left:68px}
`

const themes = `body.net-twitter{--page:#fff;--bar:#fff;--column:#fff;--ink:#0f1419;--muted:#536471;--line:#eff3f4;--accent:#1d9bf0;--brand:#0f1419;--avatar:#1d9bf0;--width:600px;--media-radius:16px}
body.net-twitter main{border-width:0 1px}
body.net-twitter .post .text{font-size:1.2rem}
${timeline('body.net-twitter')}
body.net-bluesky{--page:#fff;--bar:#fff;--column:#fff;--ink:#0b0f14;--muted:#6f869f;--line:#e4e9ee;--accent:#1083fe;--brand:#1083fe;--avatar:#1083fe;--width:600px;--media-radius:12px}
body.net-bluesky main{border-width:0 1px}
${timeline('body.net-bluesky')}
body.net-threads{--page:#fafafa;--bar:#fafafa;--column:#fff;--ink:#101010;--muted:#777;--line:#e6e6e6;--accent:#0095f6;--brand:#101010;--avatar:#101010;--width:620px;--media-radius:8px}
body.net-threads main{margin-top:1rem;border-width:1px;border-radius:16px;overflow:hidden}
body.net-threads .thread .entry,body.net-threads .entry.item{border-bottom:0}
${timeline('body.net-threads')}
body.net-mastodon{--page:#191b22;--bar:#282c37;--column:#282c37;--ink:#fff;--muted:#9baec8;--line:#393f4f;--accent:#8c8dff;--brand:#fff;--avatar:#6364ff;--width:600px;--media-radius:8px}
body.net-mastodon main{margin-top:1rem;border-radius:4px;overflow:hidden}
body.net-mastodon .avatar{border-radius:8px;width:46px;height:46px}
body.net-mastodon .cw summary{display:flex;flex-wrap:wrap;align-items:center;gap:.6rem;cursor:pointer;list-style:none}
body.net-mastodon .cw summary::-webkit-details-marker{display:none}
body.net-mastodon .cw-text{font-size:1.05rem}
body.net-mastodon .cw-toggle{padding:.1rem .5rem;border-radius:4px;background:#606984;color:#fff;font-size:.75rem;font-weight:700;text-transform:uppercase}
body.net-mastodon .cw-toggle::after{content:"Show more"}
body.net-mastodon .cw[open] .cw-toggle{background:#434a5e}
body.net-mastodon .cw[open] .cw-toggle::after{content:"Show less"}
body.net-mastodon .cw[open]>:not(summary){margin-top:.6rem}
${timeline('body.net-mastodon')}
body.net-facebook{--page:#f0f2f5;--bar:#fff;--column:transparent;--ink:#050505;--muted:#65676b;--line:#dadde1;--accent:#0866ff;--brand:#0866ff;--avatar:#0866ff;--width:680px;--media-radius:0}
body.net-facebook .brand{font-size:1.7rem;letter-spacing:-.04em}
body.net-facebook .entry{background:#fff;border:0;border-radius:8px;box-shadow:0 1px 2px rgba(0,0,0,.2);margin:1rem 0}
body.net-facebook .post .media{margin:0 -1rem;border-width:1px 0}
body.net-facebook .comments{background:#fff;border-radius:8px;margin-top:-1rem;padding-bottom:.5rem;box-shadow:0 1px 2px rgba(0,0,0,.2)}
body.net-facebook .comments .entry,body.net-linkedin .comments .entry{margin:.4rem 1rem .4rem 3.5rem;padding:.5rem .8rem;border-radius:18px;background:#f0f2f5;box-shadow:none}
body.net-facebook .comments .avatar,body.net-linkedin .comments .avatar{width:28px;height:28px;font-size:.7rem}
body.net-linkedin{--page:#f4f2ee;--bar:#fff;--column:transparent;--ink:rgba(0,0,0,.9);--muted:rgba(0,0,0,.6);--line:#e0dfdc;--accent:#0a66c2;--brand:#fff;--avatar:#0a66c2;--width:560px;--media-radius:0}
body.net-linkedin .brand{display:inline-flex;align-items:center;justify-content:center;width:34px;height:34px;border-radius:4px;background:#0a66c2;font-size:1.3rem}
body.net-linkedin .entry{background:#fff;border:1px solid var(--line);border-radius:8px;margin:1rem 0}
body.net-linkedin .avatar{border-radius:4px;width:48px;height:48px}
body.net-linkedin .post .media{margin:0 -1rem;border-width:1px 0}
body.net-linkedin .comments{background:#fff;border:1px solid var(--line);border-radius:8px;margin-top:-1rem;padding-bottom:.5rem}
body.net-linkedin .comments .entry{border:0;border-radius:8px;background:#f2f2f2}
body.net-instagram{--page:#fff;--bar:#fff;--column:#fff;--ink:#262626;--muted:#737373;--line:#dbdbdb;--accent:#0095f6;--brand:#262626;--avatar:#d62976;--width:470px;--media-radius:4px}
body.net-instagram .brand{font-family:"Brush Script MT","Segoe Script",cursive;font-style:italic;font-weight:600;font-size:1.9rem}
body.net-instagram main{margin-top:1rem;border-width:1px;border-radius:8px;overflow:hidden}
body.net-instagram .post .media{order:-1;margin:-.9rem -1rem 0;border-radius:0;border-width:0 0 1px}
body.net-instagram .post .meta{order:-2;margin-bottom:.6rem}
body.net-instagram .avatar{width:32px;height:32px;font-size:.75rem;background:#fff;color:#262626;border:2px solid transparent;background-clip:padding-box;box-shadow:0 0 0 2px #d62976}
body.net-instagram .entry{border-bottom:0}
body.net-youtube{--page:#fff;--bar:#fff;--column:#fff;--ink:#0f0f0f;--muted:#606060;--line:#e5e5e5;--accent:#065fd4;--brand:#0f0f0f;--avatar:#606060;--width:720px;--media-radius:12px}
body.net-youtube .brand::before{content:"▶";display:inline-flex;align-items:center;justify-content:center;width:30px;height:21px;margin-right:4px;border-radius:6px;background:#f00;color:#fff;font-size:.7rem;vertical-align:middle}
body.net-youtube .post .media{order:-2;border:0;justify-items:center}
body.net-youtube .post .media video,body.net-youtube .post .poster{height:min(70vh,640px);width:calc(min(70vh,640px) * 9 / 16);max-width:100%;max-height:none;object-fit:contain;border-radius:12px;background:#000}
body.net-youtube .post .title{order:-1;font-size:1.25rem}
body.net-youtube .post .text{background:#f2f2f2;border-radius:12px;padding:.6rem .8rem;font-size:.95rem}
body.net-youtube .entry{border-bottom:0}
body.net-googlebusiness{--page:#f1f3f4;--bar:#fff;--column:transparent;--ink:#202124;--muted:#5f6368;--line:#dadce0;--accent:#1a73e8;--brand:#4285f4;--avatar:#1a73e8;--width:560px;--media-radius:8px}
body.net-googlebusiness .brand{letter-spacing:-.02em}
body.net-googlebusiness .entry{background:#fff;border:1px solid var(--line);border-radius:8px;margin:1rem 0}
body.net-googlebusiness .post .media{order:-1;margin:0 -1rem .2rem;border-radius:0;border-width:1px 0}
body.net-googlebusiness .post .media img{aspect-ratio:4/3;max-height:420px}
body.net-googlebusiness .post .meta{order:-2}
body.net-googlebusiness .action{background:#1a73e8;border-color:#1a73e8;color:#fff;border-radius:18px}
body.net-googlebusiness .facts li{padding:.1rem 0}
body.net-tiktok{--page:#121212;--bar:#121212;--column:#121212;--ink:#fff;--muted:#a8a8a8;--line:#2f2f2f;--accent:#ff3b5c;--brand:#fff;--avatar:#d4143f;--width:560px;--media-radius:12px}
body.net-tiktok .brand::before{content:"♪";margin-right:4px;color:#25f4ee;text-shadow:2px 2px 0 #fe2c55}
body.net-tiktok .post .media{order:-2;display:flex;gap:6px;overflow-x:auto;scroll-snap-type:x mandatory;border:0;justify-content:center;background:#000;border-radius:12px}
body.net-tiktok .post .media img,body.net-tiktok .post .media video,body.net-tiktok .post .poster{flex:none;scroll-snap-align:center;height:min(75vh,720px);width:calc(min(75vh,720px) * 9 / 16);max-width:100%;max-height:none;object-fit:contain;border-radius:12px;background:#000}
body.net-tiktok .post .title{order:-1;font-size:1.1rem}
body.net-tiktok .entry{border-bottom:0}
body.net-pinterest{--page:#fff;--bar:#fff;--column:#fff;--ink:#111;--muted:#5f5f5f;--line:#e9e9e9;--accent:#e60023;--brand:#e60023;--avatar:#e60023;--width:560px;--media-radius:24px}
body.net-pinterest .brand{font-weight:700;letter-spacing:-.02em}
body.net-pinterest main{margin-top:1rem;border-width:1px;border-radius:32px;overflow:hidden;box-shadow:0 1px 20px rgba(0,0,0,.08)}
body.net-pinterest .post .media{order:-3;margin:-.9rem -1rem .4rem;border:0}
body.net-pinterest .post .title{order:-2;font-size:1.6rem;margin:.2rem 0}
body.net-pinterest .post .card{order:-1}
body.net-pinterest .entry{border-bottom:0}
`

export const PAGE_STYLESHEET = base + themes
