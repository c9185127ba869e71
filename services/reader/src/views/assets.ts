import { createHash } from "node:crypto";
import { OPENAPI_STYLE } from "./openapi.js";

/**
 * The reader's one stylesheet and one script, served under content-hashed paths (so they can be
 * cached forever). Pages work without the script: it only enhances (search as you type, copy
 * buttons on code, the theme toggle, the mobile navigation). The words the script shows are the
 * page's (its body's data attributes, in the page's language: views/words.ts).
 */
export interface ReaderAsset {
  path: string;
  contentType: string;
  body: string;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1d1d1f;--muted:#5b5b66;--line:#e3e3e8;--soft:#f5f5f7;--code:#f4f4f6;--accent:var(--primary-light,#346ddb);--max:78rem;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.6}
:root[data-theme=dark]{--bg:#111114;--fg:#ececf1;--muted:#a4a4b0;--line:#2c2c33;--soft:#1a1a1f;--code:#1c1c22;--accent:var(--primary-dark,#7aa2ff)}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#111114;--fg:#ececf1;--muted:#a4a4b0;--line:#2c2c33;--soft:#1a1a1f;--code:#1c1c22;--accent:var(--primary-dark,#7aa2ff)}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,summary:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:9}
header.site{position:sticky;top:0;z-index:5;display:flex;gap:1rem;align-items:center;padding:.6rem 1.25rem;border-bottom:1px solid var(--line);background:var(--bg)}
header.site .brand{font-weight:650;color:var(--fg);text-decoration:none;display:flex;gap:.5rem;align-items:center}header.site .brand img{height:2rem;width:auto}
header.site nav.links{display:flex;gap:1rem;margin-left:auto}header.site nav.links a{color:var(--muted);text-decoration:none}
form.search{display:flex}form.search input{width:14rem;padding:.4rem .6rem;border:1px solid var(--line);border-radius:.5rem;background:var(--soft);color:var(--fg)}
button.theme,button.copy{border:1px solid var(--line);background:var(--soft);color:var(--fg);border-radius:.5rem;padding:.35rem .6rem;cursor:pointer}
nav.sections{display:flex;gap:1.25rem;padding:0 1.25rem;border-bottom:1px solid var(--line);overflow-x:auto}nav.sections a{padding:.6rem 0;color:var(--muted);text-decoration:none;white-space:nowrap;border-bottom:2px solid transparent}nav.sections a[aria-current]{color:var(--fg);border-color:var(--accent)}
nav.sections details{position:relative;padding:.6rem 0}nav.sections details ul{position:absolute;background:var(--bg);border:1px solid var(--line);padding:.5rem 1rem;list-style:none;margin:0}
.layout{display:grid;grid-template-columns:16rem minmax(0,1fr) 13rem;gap:2rem;max-width:var(--max);margin:0 auto;padding:0 1.25rem}
aside.tree{position:sticky;top:3.5rem;align-self:start;max-height:calc(100vh - 4rem);overflow:auto;padding:1.25rem 0;font-size:.94rem}
aside.tree ul{list-style:none;margin:0;padding-left:.75rem}aside.tree>nav>ul{padding-left:0}aside.tree a{display:block;padding:.2rem .4rem;border-radius:.35rem;color:var(--fg);text-decoration:none}aside.tree a[aria-current]{background:var(--soft);color:var(--accent);font-weight:600}
aside.tree summary{cursor:pointer;list-style-position:outside}aside.tree .group{margin-top:.8rem;font-weight:600;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.03em}
.variants{margin:0 0 1rem}.variants ul{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem;padding:0;margin:0}.variants a{border:1px solid var(--line);border-radius:1rem;padding:.1rem .6rem;text-decoration:none;font-size:.85rem}.variants a[aria-current]{background:var(--accent);color:var(--bg);border-color:var(--accent)}
main{min-width:0;padding:1.5rem 0 4rem}main h1{font-size:2rem;line-height:1.25;margin:.2rem 0 .5rem}.description{color:var(--muted);font-size:1.1rem;margin-top:0}
nav.breadcrumbs ol{list-style:none;display:flex;gap:.4rem;padding:0;margin:0;font-size:.85rem}nav.breadcrumbs li+li::before{content:"/";margin-right:.4rem;color:var(--muted)}nav.breadcrumbs a{color:var(--muted)}
article h2,article h3,article h4{scroll-margin-top:4rem;line-height:1.3}article .anchor{margin-left:.4rem;color:var(--muted);text-decoration:none;opacity:0}article :is(h2,h3,h4):hover .anchor,article .anchor:focus{opacity:1}
article img{max-width:100%;height:auto}figure{margin:1.25rem 0}figure.code{position:relative}figure.code figcaption{font-size:.85rem;color:var(--muted)}
pre{background:var(--code);border:1px solid var(--line);border-radius:.5rem;padding:1rem;overflow:auto;font-size:.88rem}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}:not(pre)>code{background:var(--code);padding:.1em .3em;border-radius:.3rem}
.hljs-keyword,.hljs-selector-tag,.hljs-built_in{color:#b3125b}.hljs-string,.hljs-attr{color:#116329}.hljs-number,.hljs-literal{color:#0550ae}.hljs-comment{color:#57606a;font-style:italic}.hljs-title,.hljs-function{color:#8250df}
:root[data-theme=dark] :is(.hljs-keyword,.hljs-selector-tag,.hljs-built_in){color:#ff7b9c}:root[data-theme=dark] :is(.hljs-string,.hljs-attr){color:#7ee787}:root[data-theme=dark] :is(.hljs-number,.hljs-literal){color:#79c0ff}:root[data-theme=dark] :is(.hljs-title,.hljs-function){color:#d2a8ff}
.hint{border-left:4px solid var(--accent);background:var(--soft);padding:.6rem 1rem;border-radius:.4rem;margin:1rem 0}.hint-success{border-color:#1f883d}.hint-warning{border-color:#bf8700}.hint-danger{border-color:#cf222e}
blockquote{border-left:3px solid var(--line);margin:1rem 0;padding:0 1rem;color:var(--muted)}
.tabs{border:1px solid var(--line);border-radius:.5rem;margin:1rem 0}.tabs .tab{padding:.25rem 1rem}.tabs .tab+.tab{border-top:1px solid var(--line)}.tab-title{font-weight:600;color:var(--muted);margin:.6rem 0 0}
details.expandable{border:1px solid var(--line);border-radius:.5rem;padding:.5rem 1rem;margin:1rem 0}details.expandable summary{cursor:pointer;font-weight:600}
figure.embed a,p.card a{display:block;border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;word-break:break-all}ol.stepper{padding-left:1.5rem}ol.stepper>li.step{padding-left:.5rem;margin:1rem 0}div.columns{display:grid;grid-auto-flow:column;grid-auto-columns:minmax(0,1fr);gap:1.5rem;margin:1rem 0}div.column>:first-child{margin-top:0}div.updates>article.update{border-left:2px solid var(--line);padding-left:1rem;margin:1.5rem 0}p.update-date{color:var(--muted);font-size:.875rem;margin:0}ul.update-tags{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.375rem}ul.update-tags>li{border:1px solid var(--line);border-radius:999px;padding:0 .5rem;font-size:.75rem}.math{overflow-x:auto;margin:1rem 0}.math code{font-size:1rem}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:.45rem .6rem;text-align:left;vertical-align:top}th{background:var(--soft)}td>p{margin:0}
ul.tasks{list-style:none;padding-left:.5rem}li.task{display:flex;gap:.5rem;align-items:baseline}li.task>p{margin:0}
nav.pagination{display:flex;justify-content:space-between;gap:1rem;margin-top:3rem}nav.pagination a{flex:1;border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;text-decoration:none}nav.pagination .next{text-align:right}nav.pagination small{display:block;color:var(--muted)}
.updated{color:var(--muted);font-size:.85rem;margin-top:2rem}
aside.toc{position:sticky;top:3.5rem;align-self:start;padding:1.5rem 0;font-size:.85rem}aside.toc ul{list-style:none;padding:0;margin:.5rem 0}aside.toc li.d2{padding-left:.75rem}aside.toc li.d3{padding-left:1.5rem}aside.toc a{color:var(--muted);text-decoration:none}
footer.site{border-top:1px solid var(--line);padding:2rem 1.25rem;color:var(--muted);font-size:.9rem}footer.site .groups{display:flex;gap:3rem;flex-wrap:wrap;max-width:var(--max);margin:0 auto}footer.site ul{list-style:none;padding:0}
.live-results{position:absolute;top:calc(100% + .25rem);left:0;width:min(28rem,90vw);background:var(--bg);border:1px solid var(--line);border-radius:.5rem;box-shadow:0 8px 24px rgb(0 0 0/.12);list-style:none;padding:.25rem;margin:0;z-index:9}.live-results a{display:block;padding:.45rem .6rem;border-radius:.35rem;text-decoration:none;color:var(--fg)}.live-results a:hover,.live-results a:focus{background:var(--soft)}.live-results strong{display:block;color:var(--accent)}.live-results small{display:block;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
ol.hits{list-style:none;padding:0}ol.hits li{margin:1.25rem 0}ol.hits small{color:var(--muted)}
details.mobile-nav{display:none}
${OPENAPI_STYLE.trim()}
@media (max-width:70rem){.layout{grid-template-columns:15rem minmax(0,1fr)}aside.toc{display:none}}
@media (max-width:48rem){div.columns{grid-auto-flow:row}.layout{display:block}aside.tree{display:none}details.mobile-nav{display:block;padding:.5rem 1.25rem;border-bottom:1px solid var(--line)}form.search input{width:9rem}header.site nav.links{display:none}}
`;

const SCRIPT = `(()=>{const d=document,root=d.documentElement,key="imprint-theme",w=d.body.dataset;
const apply=t=>{if(t==="light"||t==="dark")root.dataset.theme=t;else delete root.dataset.theme};
const btn=d.querySelector("button.theme");if(btn){btn.hidden=false;btn.addEventListener("click",()=>{const dark=root.dataset.theme?root.dataset.theme==="dark":matchMedia("(prefers-color-scheme: dark)").matches;const next=dark?"light":"dark";apply(next);try{localStorage.setItem(key,next)}catch{}})}
for(const pre of d.querySelectorAll("figure.code pre")){const b=d.createElement("button");b.type="button";b.className="copy";b.textContent=w.copy;b.style.cssText="position:absolute;right:.5rem;top:.5rem";b.addEventListener("click",async()=>{try{await navigator.clipboard.writeText(pre.innerText);b.textContent=w.copied}catch{b.textContent=w.copyFailed}setTimeout(()=>b.textContent=w.copy,1500)});pre.parentElement.appendChild(b)}
const form=d.querySelector("form.search"),input=form&&form.querySelector("input");if(form&&input){const list=d.createElement("ul");list.className="live-results";list.setAttribute("aria-label",w.searchResults);list.hidden=true;form.style.position="relative";form.appendChild(list);input.setAttribute("autocomplete","off");let timer,seq=0;
input.addEventListener("input",()=>{clearTimeout(timer);const q=input.value.trim();if(q.length<2){list.hidden=true;return}timer=setTimeout(async()=>{const mine=++seq;try{const r=await fetch(form.action+"?format=json&q="+encodeURIComponent(q),{headers:{accept:"application/json"}});if(!r.ok||mine!==seq)return;const hits=await r.json();list.replaceChildren(...hits.slice(0,8).map(h=>{const li=d.createElement("li"),a=d.createElement("a"),t=d.createElement("strong"),x=d.createElement("small");a.href=h.url;t.textContent=h.title;x.textContent=h.excerpt||"";a.append(t,x);li.appendChild(a);return li}));list.hidden=hits.length===0}catch{}},150)});
input.addEventListener("keydown",e=>{if(e.key==="Escape")list.hidden=true;if(e.key==="ArrowDown"&&!list.hidden){const f=list.querySelector("a");if(f){e.preventDefault();f.focus()}}});list.addEventListener("keydown",e=>{const a=d.activeElement,li=a&&a.parentElement;if(e.key==="ArrowDown"&&li&&li.nextElementSibling){e.preventDefault();li.nextElementSibling.querySelector("a").focus()}if(e.key==="ArrowUp"){e.preventDefault();const p=li&&li.previousElementSibling;(p?p.querySelector("a"):input).focus()}if(e.key==="Escape"){list.hidden=true;input.focus()}})}})();`;

function hashed(name: string, extension: string, body: string, contentType: string): ReaderAsset {
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 12);
  return { path: `/_assets/${name}.${hash}.${extension}`, contentType, body };
}

/** The stylesheet and the script, each at a path that changes when its content does. */
export const readerAssets = {
  style: hashed("reader", "css", STYLE.trim(), "text/css; charset=utf-8"),
  script: hashed("reader", "js", SCRIPT, "text/javascript; charset=utf-8"),
};

/**
 * Runs before the page paints: the visitor's saved theme, so a dark reader never sees a light
 * flash. Small enough to inline (it is the only inline script).
 */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem("imprint-theme");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;
