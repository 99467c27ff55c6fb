"""HyperKitty under /hyperkitty/, where Mailman 3 sites serve it."""
from django.urls import include, path

urlpatterns = [
    path("hyperkitty/", include("hyperkitty.urls")),
    path("", include("django_mailman3.urls")),
    path("accounts/", include("allauth.urls")),
]
